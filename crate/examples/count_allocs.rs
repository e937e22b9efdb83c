//! Developer tool: counts heap allocations per step after warm-up, to keep the step
//! allocation-free (`cargo run --release --example count_allocs M.xml [STEPS]`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(n, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let m = flexlab::load_file(std::path::Path::new(&args[1])).expect("model");
    let steps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let mut d = flexlab::Data::new(&m);
    for _ in 0..steps {
        flexlab::engine::step(&m, &mut d);
    }
    let (a0, b0) = (
        ALLOCS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    for _ in 0..100 {
        flexlab::engine::step(&m, &mut d);
    }
    let (a1, b1) = (
        ALLOCS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    println!(
        "allocations per step after {steps} warm-up steps: {:.2} ({:.0} bytes)",
        (a1 - a0) as f64 / 100.0,
        (b1 - b0) as f64 / 100.0
    );
}
