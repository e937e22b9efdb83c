//! The numeric core, one module per pipeline stage, in MuJoCo's order.

pub mod actuation;
pub mod adhesion;
pub mod bodybvh;
pub mod cable;
pub mod collision;
pub mod constraint;
pub mod dense_chol;
pub mod dualmat;
pub mod elastic;
pub mod energy;
pub mod flex;
pub mod flexbvh;
pub mod flexcsr;
pub mod flexvert;
pub mod fluid;
pub mod forward;
pub mod freebody;
pub mod gravcomp;
pub mod implicit;
pub mod inertia;
pub mod integrator;
pub mod interp;
pub mod island;
pub mod jacobian;
pub mod kinematics;
pub mod lanes;
pub mod metric;
pub mod newton_dense;
pub mod newton_sparse;
pub mod passive;
pub mod ray;
pub mod rchol;
pub mod rne;
pub mod sdf;
pub mod sensor;
pub mod slot;
pub mod snh;
pub mod solver;
pub(crate) mod sort;
pub mod support;
pub mod tendon;

pub use forward::{forward, step};

use crate::model::Model;

/// Every buffer the step needs, sized once from the model so stepping never allocates.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    pub jac: jacobian::JacScratch,
    pub nodebuf: Vec<f64>,
    pub vertcols: flex::VertCols,
    pub cacc: Vec<f64>,
    pub cfrc: Vec<f64>,
    pub qfrc_tmp: Vec<f64>,
    pub qacc_tmp: Vec<f64>,
    pub rk: integrator::Rk4Scratch,
    pub metric: metric::MetricState,
    /// Boxed: the solver moves it out of the scratch for its whole run.
    pub solver: slot::Slot<solver::SolverScratch>,
    pub collision: collision::CollisionScratch,
    pub elastic: elastic::ElasticScratch,
    pub interp: interp::InterpScratch,
    pub rows: constraint::RowScratch,
    pub implicit: implicit::ImplicitScratch,
    pub free: freebody::FreeBodies,
}

impl Scratch {
    #[cold]
    pub fn new(m: &Model, maxcon: usize, maxefc: usize) -> Scratch {
        let maxnode = (0..m.nflex)
            .map(|f| m.flex_nodenum[f] as usize)
            .max()
            .unwrap_or(0);
        Scratch {
            jac: jacobian::JacScratch::new(m.nv),
            nodebuf: crate::data::zeros::<f64>(3 * maxnode),
            vertcols: flex::VertCols::new(m),
            cacc: crate::data::zeros::<f64>(6 * m.nbody),
            cfrc: crate::data::zeros::<f64>(6 * m.nbody),
            qfrc_tmp: crate::data::zeros::<f64>(m.nv),
            qacc_tmp: crate::data::zeros::<f64>(m.nv),
            rk: integrator::Rk4Scratch::new(m.nq, m.nv, m.na),
            metric: metric::MetricState::new(m),
            solver: slot::Slot::new(solver::SolverScratch::new(m, maxefc)),
            collision: collision::CollisionScratch::new(m, maxcon),
            elastic: elastic::ElasticScratch::new(m),
            interp: interp::InterpScratch::new(m),
            rows: constraint::RowScratch::new(m.nv, maxcon),
            free: freebody::FreeBodies::new(m),
            implicit: {
                let mut w = implicit::ImplicitScratch::default();
                if m.opt.integrator == crate::model::Integrator::Implicit {
                    w.ensure(m);
                }
                w
            },
        }
    }
}
