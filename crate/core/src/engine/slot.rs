//! A boxed buffer set that a stage moves out of its owner for the length of a call.
//!
//! The step borrows its scratch mutably next to the data that holds it, so it moves the scratch
//! out (`std::mem::take`) and back. Moved by value, a scratch struct of a few kilobytes cost a
//! default construction, two copies and a drop per move: on a model of a few bodies that was
//! several per cent of the step. Behind a box the move is one pointer, and the empty slot left
//! behind is `None`, made and dropped for free.

use std::ops::{Deref, DerefMut};

/// `T` on the heap, or nothing while it is moved out. Dereferences to `T`; doing so while the
/// slot is empty is a bug in the stage that took it and panics.
#[derive(Debug, Clone)]
pub struct Slot<T>(Option<Box<T>>);

impl<T> Slot<T> {
    /// A slot holding `value`.
    pub fn new(value: T) -> Self {
        Slot(Some(Box::new(value)))
    }
}

/// The empty slot: what `std::mem::take` leaves behind, without allocating.
impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot(None)
    }
}

impl<T> Deref for Slot<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.as_deref().expect("scratch used while moved out")
    }
}

impl<T> DerefMut for Slot<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.as_deref_mut().expect("scratch used while moved out")
    }
}
