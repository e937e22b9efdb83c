//! Collision detection (MuJoCo's `mj_collision`): a broad phase over bodies and flexes, then
//! geom–geom, geom–flex, flex–flex and flex self-collision narrow phases, writing
//! `Data::contact` with MuJoCo's contact parameters, frames and per-pair contact limit.

mod box_box;
pub(crate) mod capsule_box;
pub mod convex;
mod flex;
pub mod meshsupport;
mod multicontact;
mod perturb;
mod plane_mesh;
pub mod primitive;
pub mod sdf;

use super::{flexbvh, Scratch};
use crate::data::{Contact, Data, Warning};
use crate::math::*;
use crate::model::{disable, enable, Model};
use convex::{Core, EpaScratch, Shape};

/// Geom types (`mjtGeom`).
pub mod geom {
    pub const PLANE: i32 = 0;
    pub const HFIELD: i32 = 1;
    pub const SPHERE: i32 = 2;
    pub const CAPSULE: i32 = 3;
    pub const ELLIPSOID: i32 = 4;
    pub const CYLINDER: i32 = 5;
    pub const BOX: i32 = 6;
    pub const MESH: i32 = 7;
    pub const SDF: i32 = 8;
}

/// The signed distance field of sdf geom `g` (its plugin instance's torus), if it has one.
pub fn geom_torus(m: &Model, g: usize) -> Option<&crate::engine::sdf::Torus> {
    let p = m.geom_plugin[g];
    (p >= 0)
        .then(|| m.plugin_torus.get(p as usize))
        .flatten()
        .and_then(|t| t.as_ref())
}

impl sdf::SignedDistance for crate::engine::sdf::Torus {
    fn distance(&self, p: &Vec3) -> f64 {
        crate::engine::sdf::Torus::distance(self, p)
    }
    fn gradient(&self, p: &Vec3) -> Vec3 {
        crate::engine::sdf::Torus::gradient(self, p)
    }
}

/// A geom pair's margin (`mj_assignMargin`) and gap (m).
fn margin_gap(m: &Model, g1: usize, g2: usize) -> (f64, f64) {
    (
        assign_margin(m, m.geom_margin[g1] + m.geom_margin[g2]),
        m.geom_gap[g1] + m.geom_gap[g2],
    )
}

/// Smallest friction coefficient a contact gets (`mjMINMU`).
pub const MINMU: f64 = 1e-5;

/// Most contacts one geom–flex, flex–flex or self pass keeps (`mjMAXCONPAIR`).
pub const MAX_CON_PAIR: usize = 50;

/// A contact before its parameters are attached (`mjPreContact`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PreContact {
    /// Signed distance between the surfaces (m).
    pub dist: f64,
    /// Midpoint between the surfaces (m).
    pub pos: Vec3,
    /// Unit normal from the first object to the second.
    pub normal: Vec3,
    /// Preferred first tangent (zero: let the frame choose).
    pub tangent: Vec3,
}

impl PreContact {
    pub fn new(dist: f64, pos: Vec3, normal: Vec3) -> Self {
        PreContact {
            dist,
            pos,
            normal,
            tangent: [0.0; 3],
        }
    }
}

/// Buffers for the broad and narrow phase, sized once.
#[derive(Debug, Clone, Default)]
pub struct CollisionScratch {
    pub(crate) pre: Vec<PreContact>,
    pub(crate) epa: EpaScratch,
    pub(crate) vert: Vec<i32>,
    bf_box: Vec<[f64; 6]>,
    bf_pairs: Vec<(usize, usize)>,
    /// Self-collision sweep and prune: the active elements, the elements open at the sweep's
    /// position, and per active element [lo, hi] on the two axes besides the sweep axis.
    pub(crate) sap_elem: Vec<u32>,
    pub(crate) sap_open: Vec<u32>,
    pub(crate) sap_box: Vec<[f64; 4]>,
    /// The sampling's flags per contact (also the contact sort's "moved" flags).
    pub(crate) selected: Vec<bool>,
    pub(crate) min_dist: Vec<f64>,
    /// Node boxes and the walk's stack for a flex's element hierarchy.
    pub(crate) bvh_box: Vec<[f64; 6]>,
    /// The second flex's node boxes in a walk of two hierarchies.
    pub(crate) bvh_box2: Vec<[f64; 6]>,
    pub(crate) bvh_stack: Vec<usize>,
    /// Node pairs of the self-collision walk of a hierarchy.
    pub(crate) pair_stack: Vec<[u32; 2]>,
    /// Per element of a flex: reached by the body–flex walk for the current geom.
    pub(crate) reach: Vec<bool>,
    /// Sort keys (a key, a position) and the merge sort's buffer, for the sweep's box ends and
    /// for the contacts of a walk (never both at once).
    pub(crate) sort_key: Vec<(u64, u32)>,
    pub(crate) sort_buf: Vec<(u64, u32)>,
}

impl CollisionScratch {
    #[cold]
    pub fn new(m: &Model, maxcon: usize) -> Self {
        let nbf = m.nbody + m.nflex;
        let maxelem = (0..m.nflex)
            .map(|f| m.flex_elemnum[f] as usize)
            .max()
            .unwrap_or(0);
        let maxv = (0..m.nflex)
            .map(|f| m.flex_vertnum[f] as usize)
            .max()
            .unwrap_or(0);
        let maxnode = m.flex_tree.iter().map(|t| t.child.len()).max().unwrap_or(0);
        let maxbodynode = m.body_tree.iter().map(|t| t.child.len()).max().unwrap_or(0);
        CollisionScratch {
            pre: crate::data::with_capacity(maxv.max(64)),
            epa: EpaScratch::new(ccd_iterations(m)),
            vert: crate::data::with_capacity(maxv.max(64)),
            bf_box: crate::data::zeros(nbf),
            bf_pairs: crate::data::with_capacity(nbf * 4),
            sap_elem: crate::data::with_capacity(maxelem),
            sap_open: crate::data::with_capacity(maxelem),
            sap_box: crate::data::zeros(maxelem),
            selected: crate::data::zeros(maxcon),
            min_dist: crate::data::zeros::<f64>(maxcon),
            bvh_box: crate::data::zeros(maxnode),
            bvh_box2: crate::data::zeros(maxnode),
            bvh_stack: crate::data::with_capacity(maxnode),
            // MuJoCo's bound for the walk of two trees (never reached by a self walk)
            pair_stack: crate::data::with_capacity(2 * maxnode + 2 * maxbodynode),
            reach: crate::data::zeros(maxelem),
            sort_key: crate::data::with_capacity(maxcon.max(2 * maxelem)),
            sort_buf: crate::data::with_capacity(maxcon.max(2 * maxelem)),
        }
    }
}

/// Iterations of the convex collision search (`ccd_iterations`, at least one).
pub(crate) fn ccd_iterations(m: &Model) -> usize {
    m.opt.ccd_iterations.max(1) as usize
}

/// Contacts a step can keep: the bound the constraint rows are sized by.
pub fn max_kept_contacts(m: &Model) -> usize {
    (4 * m.nflexvert + 8 * m.ngeom + 64).min(200_000)
}

/// Most contacts the buffer grows to (`Data::maxcon`): beyond it a pass's contacts are
/// dropped with MuJoCo's "contact full" warning. 200,000 contacts are 114 MB (568 bytes each).
pub const CONTACT_LIMIT: usize = 200_000;

/// Initial capacity of the contact buffer for this model: the contacts a step keeps, and room
/// for the candidates of the largest self-collision or flex–flex pass before MuJoCo's
/// 50-per-pass sampling keeps some, 8 per element of the pass's flexes (a tet bar buckled into
/// itself gives ~5 per active element, two tet blocks pressed together ~3.5). A pass with more
/// grows the buffer ([`add_contact`]): MuJoCo keeps them all in its arena, and a candidate
/// dropped for want of room changes which 50 are kept (a thick-radius ellipsoid under a tet box,
/// 1,666 candidates of 108 + 48 elements, random scene 131 of `random-scenes.py --snh`).
pub fn max_contacts(m: &Model) -> usize {
    let elems = |f: usize| 8 * m.flex_elemnum[f] as usize;
    let own = (0..m.nflex).filter(|&f| self_collides(m, f)).map(elems);
    let pairs = (0..m.nflex).flat_map(|f1| (f1 + 1..m.nflex).map(move |f2| (f1, f2)));
    let between = pairs
        .filter(|&(f1, f2)| {
            !bitmask_reject(
                m.flex_contype[f1],
                m.flex_conaffinity[f1],
                m.flex_contype[f2],
                m.flex_conaffinity[f2],
            )
        })
        .map(|(f1, f2)| elems(f1) + elems(f2));
    let candidates = own.chain(between).max().unwrap_or(0);
    (max_kept_contacts(m) + candidates).min(CONTACT_LIMIT)
}

/// Whether flex `f` collides with itself: not rigid, its own contype and conaffinity match,
/// and `selfcollide` is not none.
fn self_collides(m: &Model, f: usize) -> bool {
    m.flex_rigid[f] == 0
        && (m.flex_contype[f] & m.flex_conaffinity[f]) != 0
        && m.flex_selfcollide[f] != crate::model::flexself::NONE
}

/// Effective margin of a pair (`mj_assignMargin`): the override when enabled.
pub(crate) fn assign_margin(m: &Model, margin: f64) -> f64 {
    if m.opt.enabled(enable::OVERRIDE) {
        m.opt.o_margin
    } else {
        margin
    }
}

/// Contact parameters of a pair of geoms or flexes (`mj_contactParam`).
pub(crate) struct Params {
    pub condim: i32,
    pub solref: [f64; 2],
    /// Reference of the friction rows (zero: `solref`'s); only explicit pairs set one.
    pub solreffriction: [f64; 2],
    pub solimp: [f64; 5],
    pub friction: [f64; 5],
    /// The contact's pull along its normal (N).
    pub adhesion: f64,
}

pub(crate) fn contact_param(m: &Model, g1: i32, g2: i32, f1: i32, f2: i32) -> Params {
    // a flex has no adhesion of its own
    let side = |g: i32, f: i32| {
        if f < 0 {
            let g = g as usize;
            (
                m.geom_adhesion[g],
                m.geom_priority[g],
                m.geom_condim[g],
                m.geom_solmix[g],
                [m.geom_solref[2 * g], m.geom_solref[2 * g + 1]],
                {
                    let mut s = [0.0; 5];
                    s.copy_from_slice(&m.geom_solimp[5 * g..5 * g + 5]);
                    s
                },
                [
                    m.geom_friction[3 * g],
                    m.geom_friction[3 * g + 1],
                    m.geom_friction[3 * g + 2],
                ],
            )
        } else {
            let f = f as usize;
            (
                0.0,
                m.flex_priority[f],
                m.flex_condim[f],
                m.flex_solmix[f],
                [m.flex_solref[2 * f], m.flex_solref[2 * f + 1]],
                {
                    let mut s = [0.0; 5];
                    s.copy_from_slice(&m.flex_solimp[5 * f..5 * f + 5]);
                    s
                },
                [
                    m.flex_friction[3 * f],
                    m.flex_friction[3 * f + 1],
                    m.flex_friction[3 * f + 2],
                ],
            )
        }
    };
    let (a1, p1, c1, mix1, r1, i1, fr1) = side(g1, f1);
    let (a2, p2, c2, mix2, r2, i2, fr2) = side(g2, f2);
    let (condim, solref, solimp, fri, adhesion);
    if p1 > p2 {
        (condim, solref, solimp, fri, adhesion) = (c1, r1, i1, fr1, a1);
    } else if p1 < p2 {
        (condim, solref, solimp, fri, adhesion) = (c2, r2, i2, fr2, a2);
    } else {
        // each surface adds its own attraction
        adhesion = a1 + a2;
        condim = c1.max(c2);
        let mix = if mix1 >= MINVAL && mix2 >= MINVAL {
            mix1 / (mix1 + mix2)
        } else if mix1 < MINVAL && mix2 < MINVAL {
            0.5
        } else if mix1 < MINVAL {
            0.0
        } else {
            1.0
        };
        let mut r = [0.0; 2];
        for k in 0..2 {
            r[k] = if r1[0] > 0.0 && r2[0] > 0.0 {
                mix * r1[k] + (1.0 - mix) * r2[k]
            } else {
                min(r1[k], r2[k])
            };
        }
        solref = r;
        let mut im = [0.0; 5];
        for k in 0..5 {
            im[k] = mix * i1[k] + (1.0 - mix) * i2[k];
        }
        solimp = im;
        fri = [
            max(fr1[0], fr2[0]),
            max(fr1[1], fr2[1]),
            max(fr1[2], fr2[2]),
        ];
    }
    Params {
        condim,
        solref,
        solreffriction: [0.0; 2],
        solimp,
        friction: [fri[0], fri[0], fri[1], fri[2], fri[2]],
        adhesion,
    }
}

/// Contact parameters of explicit pair `p`: its own, as `mj_narrowphase` copies them.
fn pair_param(m: &Model, p: usize) -> Params {
    let row = |v: &[f64], w: usize| -> [f64; 5] {
        let mut out = [0.0; 5];
        out[..w].copy_from_slice(&v[w * p..w * p + w]);
        out
    };
    let (r, rf) = (row(&m.pair_solref, 2), row(&m.pair_solreffriction, 2));
    Params {
        condim: m.pair_dim[p],
        solref: [r[0], r[1]],
        solreffriction: [rf[0], rf[1]],
        solimp: row(&m.pair_solimp, 5),
        friction: row(&m.pair_friction, 5),
        adhesion: m.pair_adhesion[p],
    }
}

/// Completes a contact frame from its normal (row 0) and optional tangent (row 1)
/// (`mju_makeFrame`).
pub fn make_frame(frame: &mut [f64; 9]) {
    let mut x = [frame[0], frame[1], frame[2]];
    normalize3(&mut x);
    let mut y = [frame[3], frame[4], frame[5]];
    if dot3(&y, &y) < 0.25 {
        y = if frame[1] < 0.5 && frame[1] > -0.5 {
            [0.0, 1.0, 0.0]
        } else {
            [0.0, 0.0, 1.0]
        };
    }
    let t = scl3(&x, dot3(&x, &y));
    y = sub3(&y, &t);
    normalize3(&mut y);
    let z = cross(&x, &y);
    frame[..3].copy_from_slice(&x);
    frame[3..6].copy_from_slice(&y);
    frame[6..].copy_from_slice(&z);
}

/// Appends a contact with its parameters (`mj_setContact` + `mj_addContact`), growing the
/// buffer (doubling, up to `d.maxcon`) when a pass outgrows it: an allocation only in the step
/// that first needs the room. False when the buffer is full (the warning is raised once per
/// step).
pub(crate) fn add_contact(
    m: &Model,
    d: &mut Data,
    pc: &PreContact,
    p: &Params,
    margin: f64,
    ids: ([i32; 2], [i32; 2], [i32; 2], [i32; 2]),
) -> bool {
    if d.ncon >= d.contact.len() {
        if d.ncon >= d.maxcon {
            d.warn(Warning::ContactFull, d.ncon as i32);
            return false;
        }
        grow_contacts(d);
    }
    let o = &m.opt;
    let over = o.enabled(enable::OVERRIDE);
    let c = &mut d.contact[d.ncon];
    *c = Contact::default();
    c.dist = pc.dist;
    c.pos = pc.pos;
    c.frame[..3].copy_from_slice(&pc.normal);
    c.frame[3..6].copy_from_slice(&pc.tangent);
    make_frame(&mut c.frame);
    c.dim = p.condim;
    c.includemargin = margin;
    c.solref = if over { o.o_solref } else { p.solref };
    c.solreffriction = if over { o.o_solref } else { p.solreffriction };
    c.solimp = if over { o.o_solimp } else { p.solimp };
    // `mj_assignFriction`: no coefficient below mjMINMU, so a frictionless geom's pyramid
    // keeps distinct edges (with zeros the rows of a condim-6 contact are linearly dependent)
    let friction = if over { o.o_friction } else { p.friction };
    c.friction = friction.map(|mu| max(MINMU, mu));
    c.adhesion = p.adhesion;
    // an adhesive contact stays active in the gap, as a normal-only row whose reference pulls
    // (a tether); without surface contact it has no friction
    let in_gap = c.dist >= margin;
    c.exclude = (in_gap && p.adhesion == 0.0) as i32;
    if in_gap && p.adhesion != 0.0 {
        c.dim = 1;
    }
    c.geom = ids.0;
    c.flex = ids.1;
    c.elem = ids.2;
    c.vert = ids.3;
    c.efc_address = -1;
    d.ncon += 1;
    true
}

#[cold]
#[inline(never)]
fn grow_contacts(d: &mut Data) {
    let room = (2 * d.contact.len()).max(64).min(d.maxcon);
    d.contact.resize(room, Contact::default());
}

/// Whether two contype/conaffinity pairs cannot touch (`filterBitmask`).
pub fn bitmask_reject(t1: i32, a1: i32, t2: i32, a2: i32) -> bool {
    (t1 & a2) == 0 && (t2 & a1) == 0
}

/// Contact type and affinity of a body (union of its geoms) or flex.
fn bf_bits(m: &Model, bf: usize) -> (i32, i32) {
    if bf < m.nbody {
        let (mut t, mut a) = (0, 0);
        let g0 = m.body_geomadr[bf].max(0) as usize;
        for g in g0..g0 + m.body_geomnum[bf] as usize {
            t |= m.geom_contype[g];
            a |= m.geom_conaffinity[g];
        }
        (t, a)
    } else {
        let f = bf - m.nbody;
        (m.flex_contype[f], m.flex_conaffinity[f])
    }
}

/// Whether a body pair is discarded by the weld/parent rules (`filterBodyPair`).
pub fn filter_body_pair(m: &Model, b1: usize, b2: usize) -> bool {
    let w1 = m.body_weldid[b1] as usize;
    let w2 = m.body_weldid[b2] as usize;
    if w1 == w2 {
        return true;
    }
    let d1 = m.body_dofnum[w1];
    let d2 = m.body_dofnum[w2];
    if d1 == 0 && d2 == 0 {
        return true;
    }
    let p1 = m.body_weldid[m.body_parentid[w1] as usize] as usize;
    let p2 = m.body_weldid[m.body_parentid[w2] as usize] as usize;
    !m.opt.disabled(disable::FILTERPARENT) && w1 != 0 && w2 != 0 && (w1 == p2 || w2 == p1)
}

/// World-aligned box of a body's geoms or a flex's vertices, inflated by margins: each
/// object's margin plus gap, or under the override half of `o_margin` (when not zero), as
/// MuJoCo's broad phase inflates its boxes (`makeAAMM`).
fn bf_aabb(m: &Model, d: &Data, bf: usize) -> [f64; 6] {
    let half_override = if m.opt.enabled(enable::OVERRIDE) {
        0.5 * m.opt.o_margin
    } else {
        0.0
    };
    let inflate = |margin: f64, gap: f64| {
        if half_override != 0.0 {
            half_override
        } else {
            margin + gap
        }
    };
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    if bf < m.nbody {
        let g0 = m.body_geomadr[bf].max(0) as usize;
        for g in g0..g0 + m.body_geomnum[bf] as usize {
            let r = m.geom_rbound[g];
            if m.geom_type[g] == geom::PLANE || r <= 0.0 {
                return [
                    f64::NEG_INFINITY,
                    f64::NEG_INFINITY,
                    f64::NEG_INFINITY,
                    f64::INFINITY,
                    f64::INFINITY,
                    f64::INFINITY,
                ];
            }
            let r = r + inflate(m.geom_margin[g], m.geom_gap[g]);
            for k in 0..3 {
                lo[k] = min(lo[k], d.a.geom_xpos[3 * g + k] - r);
                hi[k] = max(hi[k], d.a.geom_xpos[3 * g + k] + r);
            }
        }
    } else {
        let f = bf - m.nbody;
        let r = m.flex_radius[f] + inflate(m.flex_margin[f], m.flex_gap[f]);
        let va = m.flex_vertadr[f] as usize;
        for v in va..va + m.flex_vertnum[f] as usize {
            for k in 0..3 {
                lo[k] = min(lo[k], d.a.flexvert_xpos[3 * v + k] - r);
                hi[k] = max(hi[k], d.a.flexvert_xpos[3 * v + k] + r);
            }
        }
    }
    [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]
}

fn boxes_overlap(a: &[f64; 6], b: &[f64; 6], margin: f64) -> bool {
    (0..3).all(|k| a[k] - margin <= b[3 + k] && b[k] - margin <= a[3 + k])
}

/// Detects all contacts of the current configuration.
pub fn collision(m: &Model, d: &mut Data, s: &mut Scratch) {
    d.ncon = 0;
    let nbf = m.nbody + m.nflex;
    if m.opt.disabled(disable::CONSTRAINT) || m.opt.disabled(disable::CONTACT) || nbf < 2 {
        return;
    }
    let cs = &mut s.collision;
    // broad phase: every collidable body/flex pair whose boxes overlap, in signature order
    for bf in 0..nbf {
        cs.bf_box[bf] = bf_aabb(m, d, bf);
    }
    cs.bf_pairs.clear();
    for bf1 in 0..nbf {
        let (t1, a1) = bf_bits(m, bf1);
        if t1 == 0 && a1 == 0 {
            continue;
        }
        for bf2 in bf1 + 1..nbf {
            let (t2, a2) = bf_bits(m, bf2);
            if bitmask_reject(t1, a1, t2, a2) {
                continue;
            }
            if bf2 < m.nbody && filter_body_pair(m, bf1, bf2) {
                continue;
            }
            if !boxes_overlap(&cs.bf_box[bf1], &cs.bf_box[bf2], 0.0) {
                continue;
            }
            let sig = ((bf1 as i32) << 16) + bf2 as i32;
            if m.exclude_signature.contains(&sig) {
                continue;
            }
            cs.bf_pairs.push((bf1, bf2));
        }
    }
    let pairs = std::mem::take(&mut cs.bf_pairs);
    // the explicit pairs are merged in by body signature, each before the broad phase's first
    // body pair of a signature at or above its own (MuJoCo's `mj_collision`)
    let mut pairadr = 0;
    for &(bf1, bf2) in &pairs {
        let sig = ((bf1 as i32) << 16) + bf2 as i32;
        let startadr = pairadr;
        while pairadr < m.npair && m.pair_signature[pairadr] <= sig {
            let (g1, g2) = (m.pair_geom1[pairadr], m.pair_geom2[pairadr]);
            geom_geom(m, d, s, g1 as usize, g2 as usize, Some(pairadr));
            pairadr += 1;
        }
        if bf2 < m.nbody {
            let (a0, an) = (m.body_geomadr[bf1], m.body_geomnum[bf1]);
            let (b0, bn) = (m.body_geomadr[bf2], m.body_geomnum[bf2]);
            if a0 < 0 || b0 < 0 {
                continue;
            }
            // a geom pair that is also an explicit pair of this body pair collides once, as
            // the explicit one
            let explicit = |g1: usize, g2: usize| {
                (startadr..pairadr).any(|k| {
                    let (p1, p2) = (m.pair_geom1[k] as usize, m.pair_geom2[k] as usize);
                    (p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1)
                })
            };
            let before = d.ncon;
            for g1 in a0 as usize..(a0 + an) as usize {
                for g2 in b0 as usize..(b0 + bn) as usize {
                    if !explicit(g1, g2) {
                        geom_geom(m, d, s, g1, g2, None);
                    }
                }
            }
            // MuJoCo walks the geom hierarchies of two bodies that are not both single-geom
            // (`mj_collideTree`) and sorts the walk's contacts by geom ids; every geom pair
            // yields its contacts together, so sorting the loop's gives the same list
            if (an, bn) != (1, 1) && !m.opt.disabled(disable::MIDPHASE) {
                sort_contacts(d, &mut s.collision, before);
            }
        } else if bf1 < m.nbody {
            let f = bf2 - m.nbody;
            let (a0, an) = (m.body_geomadr[bf1], m.body_geomnum[bf1]);
            if a0 < 0 {
                continue;
            }
            let geoms = a0 as usize..(a0 + an) as usize;
            if !m.opt.disabled(disable::MIDPHASE) && an > 0 {
                // MuJoCo's midphase (`mj_collideTree`): a dof-less body's planes collide with
                // the vertices first, then the body's SDF geoms with the flex, then every other
                // geom with the flex's elements along the two hierarchies. MuJoCo 3.15.0 sorts
                // only the walk's contacts by object ids, after the planes' and SDFs' (checked
                // against it: a plane's contacts stay ahead of a lower-numbered box's, an SDF's
                // keep the order of its own walk), then samples the pair's contacts together
                let before = d.ncon;
                let weld = m.body_weldid[bf1] as usize;
                if m.body_dofnum[weld] == 0 {
                    for g in geoms.clone() {
                        if m.geom_type[g] == geom::PLANE {
                            flex::plane_flex(m, d, &mut s.collision, g, f);
                        }
                    }
                }
                // an SDF geom collides with the whole flex through its own walk
                // (`mj_collideSdfFlex`), before the tree's other geoms
                for g in geoms.clone() {
                    if m.geom_type[g] == geom::SDF {
                        if let Some(t) = geom_torus(m, g) {
                            sdf::sdf_flex(m, d, &mut s.collision, g, f, t);
                        }
                    }
                }
                let walk_start = d.ncon;
                // which elements each geom meets depends on the two hierarchies' inner tests
                let walk = flex::walkable(m, f) && !m.body_tree[bf1].child.is_empty();
                if walk {
                    let (ea, en) = (m.flex_elemadr[f] as usize, m.flex_elemnum[f] as usize);
                    flexbvh::node_boxes(
                        &m.flex_tree[f],
                        &d.a.flexelem_aabb[6 * ea..6 * (ea + en)],
                        &mut s.collision.bvh_box,
                    );
                }
                for g in geoms {
                    if m.geom_type[g] == geom::PLANE
                        || m.geom_type[g] == geom::SDF
                        || bitmask_reject(
                            m.geom_contype[g],
                            m.geom_conaffinity[g],
                            m.flex_contype[f],
                            m.flex_conaffinity[f],
                        )
                    {
                        continue;
                    }
                    if walk {
                        let cs = &mut s.collision;
                        let mut reach = std::mem::take(&mut cs.reach);
                        let mut stack = std::mem::take(&mut cs.pair_stack);
                        let n = m.flex_elemnum[f] as usize;
                        flex::walk_reach(m, d, &cs.bvh_box, bf1, g, f, &mut stack, &mut reach[..n]);
                        cs.pair_stack = stack;
                        flex::geom_flex(m, d, cs, g, f, Some(&reach[..n]));
                        cs.reach = reach;
                    } else {
                        flex::geom_flex(m, d, &mut s.collision, g, f, None);
                    }
                }
                sort_contacts(d, &mut s.collision, walk_start);
                filter_flex_contacts(d, &mut s.collision, before);
                continue;
            }
            for g in geoms {
                if bitmask_reject(
                    m.geom_contype[g],
                    m.geom_conaffinity[g],
                    m.flex_contype[f],
                    m.flex_conaffinity[f],
                ) {
                    continue;
                }
                let before = d.ncon;
                if m.geom_type[g] == geom::PLANE {
                    flex::plane_flex(m, d, &mut s.collision, g, f);
                } else if m.geom_type[g] == geom::SDF {
                    if let Some(t) = geom_torus(m, g) {
                        sdf::sdf_flex(m, d, &mut s.collision, g, f, t);
                    }
                } else {
                    flex::geom_flex(m, d, &mut s.collision, g, f, None);
                }
                filter_flex_contacts(d, &mut s.collision, before);
            }
        } else {
            let (f1, f2) = (bf1 - m.nbody, bf2 - m.nbody);
            let before = d.ncon;
            // MuJoCo 3.15.0 samples its 50 from the walk's contacts in sorted order (checked
            // against it: of two candidates at the same point, the lower element id is kept)
            if flex::flex_flex(m, d, &mut s.collision, f1, f2) {
                sort_contacts(d, &mut s.collision, before);
            }
            filter_flex_contacts(d, &mut s.collision, before);
        }
    }
    s.collision.bf_pairs = pairs;
    for p in pairadr..m.npair {
        let (g1, g2) = (m.pair_geom1[p], m.pair_geom2[p]);
        geom_geom(m, d, s, g1 as usize, g2 as usize, Some(p));
    }
    for f in (0..m.nflex).filter(|&f| self_collides(m, f)) {
        let before = d.ncon;
        let walked_tree = flex::self_collide(m, d, &mut s.collision, f);
        // MuJoCo 3.15.0 sorts the contacts of a hierarchy walk before sampling them, as after
        // a flex–flex walk (checked against it); those of the sweep and the all-pairs loop keep
        // the order they were found in
        if walked_tree {
            sort_contacts(d, &mut s.collision, before);
        }
        filter_flex_contacts(d, &mut s.collision, before);
    }
}

/// Sorts the contacts added since `before` by their two object ids (geom, else element, else
/// vertex), stably, as MuJoCo's `contactSort` orders a midphase walk's contacts. Sorts indices
/// with MuJoCo's merge sort, then moves each contact once along the permutation's cycles.
fn sort_contacts(d: &mut Data, cs: &mut CollisionScratch, before: usize) {
    let n = d.ncon - before;
    if n < 2 {
        return;
    }
    let id = |g: i32, e: i32, v: i32| {
        if g >= 0 {
            g
        } else if e >= 0 {
            e
        } else {
            v
        }
    };
    let con = &mut d.contact[before..d.ncon];
    let mut key = std::mem::take(&mut cs.sort_key);
    let mut buf = std::mem::take(&mut cs.sort_buf);
    key.clear();
    // (id1, id2) in one integer, each id's sign bit flipped so that unsigned order is signed
    // order; the same key type as the sweep's, so both share one sort
    let flip = |x: i32| u64::from(x as u32 ^ 1 << 31);
    key.extend(con.iter().enumerate().map(|(k, c)| {
        let (a, b) = (
            id(c.geom[0], c.elem[0], c.vert[0]),
            id(c.geom[1], c.elem[1], c.vert[1]),
        );
        (flip(a) << 32 | flip(b), k as u32)
    }));
    buf.clear();
    buf.resize(n, (0, 0));
    crate::engine::sort::merge_sort(&mut key, &mut buf, |a, b| a.0 <= b.0);
    // the contact at position k moves from key[k].1; follow each cycle once
    fit(&mut cs.selected, n);
    let done = &mut cs.selected[..n];
    done.fill(false);
    for start in 0..n {
        if done[start] || key[start].1 as usize == start {
            continue;
        }
        let first = con[start];
        let mut k = start;
        loop {
            done[k] = true;
            let from = key[k].1 as usize;
            if from == start {
                con[k] = first;
                break;
            }
            con[k] = con[from];
            k = from;
        }
    }
    cs.sort_key = key;
    cs.sort_buf = buf;
}

/// At least `n` entries in a scratch array sized by the contact buffer (which can grow).
fn fit<T: Default + Clone>(v: &mut Vec<T>, n: usize) {
    if v.len() < n {
        v.resize(n, T::default());
    }
}

/// Keeps at most `MAX_CON_PAIR` of the contacts added since `before`, by farthest-point
/// sampling from the deepest (`filterFlexContacts`).
fn filter_flex_contacts(d: &mut Data, cs: &mut CollisionScratch, before: usize) {
    let n = d.ncon - before;
    if n <= MAX_CON_PAIR {
        return;
    }
    let con = &mut d.contact[before..d.ncon];
    fit(&mut cs.selected, n);
    fit(&mut cs.min_dist, n);
    let selected = &mut cs.selected[..n];
    let min_dist = &mut cs.min_dist[..n];
    selected.fill(false);
    min_dist.fill(MAXVAL);
    let mut best: i64 = 0;
    let mut bestdist = -con[0].dist;
    for (i, c) in con.iter().enumerate().skip(1) {
        if -c.dist > bestdist {
            bestdist = -c.dist;
            best = i as i64;
        }
    }
    let mut nsel = 0;
    while nsel < MAX_CON_PAIR && best >= 0 {
        let b = best as usize;
        selected[b] = true;
        let bp = con[b].pos;
        let mut next: i64 = -1;
        let mut nextd = -1.0;
        for i in 0..n {
            if selected[i] {
                continue;
            }
            let dx = con[i].pos[0] - bp[0];
            let dy = con[i].pos[1] - bp[1];
            let dz = con[i].pos[2] - bp[2];
            let d2 = dx * dx + dy * dy + dz * dz;
            if d2 < min_dist[i] {
                min_dist[i] = d2;
            }
            if min_dist[i] > nextd {
                nextd = min_dist[i];
                next = i as i64;
            }
        }
        nsel += 1;
        best = next;
    }
    // the selected contacts keep their order
    let mut k = 0;
    for i in 0..n {
        if selected[i] {
            con.swap(k, i);
            k += 1;
        }
    }
    d.ncon = before + nsel;
}

/// The convex description of a geom for GJK/EPA.
pub(crate) fn geom_shape<'a>(m: &'a Model, d: &Data, g: usize) -> Shape<'a> {
    let c = [
        d.a.geom_xpos[3 * g],
        d.a.geom_xpos[3 * g + 1],
        d.a.geom_xpos[3 * g + 2],
    ];
    let mut mat = [0.0; 9];
    mat.copy_from_slice(&d.a.geom_xmat[9 * g..9 * g + 9]);
    let size = [
        m.geom_size[3 * g],
        m.geom_size[3 * g + 1],
        m.geom_size[3 * g + 2],
    ];
    match m.geom_type[g] {
        geom::SPHERE => Shape {
            core: Core::Sphere { c, mat },
            radius: size[0],
        },
        geom::CAPSULE => Shape {
            core: Core::Capsule { c, mat, h: size[1] },
            radius: size[0],
        },
        geom::ELLIPSOID => Shape {
            core: Core::Ellipsoid { c, mat, size },
            radius: 0.0,
        },
        geom::CYLINDER => Shape {
            core: Core::Cylinder {
                c,
                mat,
                r: size[0],
                h: size[1],
            },
            radius: 0.0,
        },
        geom::MESH => Shape {
            core: Core::Mesh {
                c,
                mat,
                mesh: mesh_data(m, g),
            },
            radius: 0.0,
        },
        _ => Shape {
            core: Core::Box { c, mat, size },
            radius: 0.0,
        },
    }
}

/// The mesh of mesh geom `g` for support queries: vertices, and the hull graph when the
/// native CCD climbs it (see [`meshsupport`]).
pub(crate) fn mesh_data(m: &Model, g: usize) -> meshsupport::MeshData<'_> {
    let id = m.geom_dataid[g];
    if id < 0 {
        return meshsupport::MeshData {
            vert: &[],
            graph: &[],
            extrema: &[],
            polys: None,
        };
    }
    let id = id as usize;
    let a = m.mesh_vertadr[id] as usize;
    let n = m.mesh_vertnum[id] as usize;
    let ga = m.mesh_graphadr[id];
    let graph = if ga < 0 {
        &m.mesh_graph[0..0]
    } else {
        let ga = ga as usize;
        let nv = m.mesh_graph[ga] as usize;
        let nf = m.mesh_graph[ga + 1] as usize;
        &m.mesh_graph[ga..ga + 2 + 3 * nv + 6 * nf]
    };
    meshsupport::MeshData {
        vert: &m.mesh_vert[3 * a..3 * (a + n)],
        graph,
        extrema: &m.mesh_extrema[27 * id..27 * id + 27],
        polys: Some(mesh_polys(m, g)),
    }
}

/// The polygons of mesh geom `g`'s mesh, with mesh-local vertex and polygon ids.
pub(crate) fn mesh_polys(m: &Model, g: usize) -> plane_mesh::MeshPolys<'_> {
    let id = m.geom_dataid[g].max(0) as usize;
    let (pa, pn) = (m.mesh_polyadr[id] as usize, m.mesh_polynum[id] as usize);
    let (va, vn) = (m.mesh_vertadr[id] as usize, m.mesh_vertnum[id] as usize);
    plane_mesh::MeshPolys {
        normal: &m.mesh_polynormal[3 * pa..3 * (pa + pn)],
        vertadr: &m.mesh_polyvertadr[pa..pa + pn],
        vertnum: &m.mesh_polyvertnum[pa..pa + pn],
        vert: &m.mesh_polyvert,
        mapadr: &m.mesh_polymapadr[va..va + vn],
        mapnum: &m.mesh_polymapnum[va..va + vn],
        map: &m.mesh_polymap,
    }
}

/// One geom pair (`filterCollisionPair` + the collision table): a pair of the broad phase
/// (`ipair` None: filtered by contype/conaffinity, margins and parameters mixed from the
/// geoms') or explicit pair `ipair` (its own margin, gap and parameters, no bitmask filter).
fn geom_geom(m: &Model, d: &mut Data, s: &mut Scratch, ga: usize, gb: usize, ipair: Option<usize>) {
    let (g1, g2) = if m.geom_type[ga] > m.geom_type[gb] {
        (gb, ga)
    } else {
        (ga, gb)
    };
    let (margin, gap) = match ipair {
        Some(p) => (assign_margin(m, m.pair_margin[p]), m.pair_gap[p]),
        None => {
            if bitmask_reject(
                m.geom_contype[g1],
                m.geom_conaffinity[g1],
                m.geom_contype[g2],
                m.geom_conaffinity[g2],
            ) {
                return;
            }
            margin_gap(m, g1, g2)
        }
    };
    let (t1, t2) = (m.geom_type[g1], m.geom_type[g2]);
    // bounding-sphere filter
    let p1 = &d.a.geom_xpos[3 * g1..3 * g1 + 3];
    let p2 = &d.a.geom_xpos[3 * g2..3 * g2 + 3];
    let (r1, r2) = (m.geom_rbound[g1], m.geom_rbound[g2]);
    if r1 > 0.0 && r2 > 0.0 {
        let dd = sub3(&[p1[0], p1[1], p1[2]], &[p2[0], p2[1], p2[2]]);
        let b = r1 + r2 + margin + gap;
        if dot3(&dd, &dd) > b * b {
            return;
        }
    } else if t1 == geom::PLANE && r2 > 0.0 {
        let n = [
            d.a.geom_xmat[9 * g1 + 2],
            d.a.geom_xmat[9 * g1 + 5],
            d.a.geom_xmat[9 * g1 + 8],
        ];
        let dd = sub3(&[p2[0], p2[1], p2[2]], &[p1[0], p1[1], p1[2]]);
        if dot3(&dd, &n) > margin + gap + r2 {
            return;
        }
    }
    if t1 == geom::PLANE && t2 == geom::PLANE {
        return;
    }
    let cs = &mut s.collision;
    cs.pre.clear();
    let mg = margin + gap;
    let (x1, x2) = (
        &d.a.geom_xmat[9 * g1..9 * g1 + 9],
        &d.a.geom_xmat[9 * g2..9 * g2 + 9],
    );
    let s1 = &m.geom_size[3 * g1..3 * g1 + 3];
    let s2 = &m.geom_size[3 * g2..3 * g2 + 3];
    use primitive::*;
    let out = &mut cs.pre;
    match (t1, t2) {
        // MuJoCo has no plane–sdf function (and no hfield or mesh one here: refused upfront)
        (geom::PLANE | geom::HFIELD | geom::MESH, geom::SDF) => {}
        (_, geom::SDF) => {
            let Some(s2) = geom_torus(m, g2) else {
                return;
            };
            let f1 = match geom_torus(m, g1) {
                Some(t) if t1 == geom::SDF => sdf::Field::Sdf(t),
                _ => sdf::Field::Primitive(t1, [s1[0], s1[1], s1[2]]),
            };
            sdf::geom_sdf(m, d, out, g1, g2, f1, s2);
        }
        (geom::PLANE, geom::SPHERE) => {
            plane_sphere(out, mg, p1, x1, p2, s2[0]);
        }
        (geom::PLANE, geom::CAPSULE) => {
            plane_capsule(out, mg, p1, x1, p2, x2, s2);
        }
        (geom::PLANE, geom::CYLINDER) => {
            plane_cylinder(out, mg, p1, x1, p2, x2, s2);
        }
        (geom::PLANE, geom::BOX) => {
            plane_box(out, mg, p1, x1, p2, x2, s2);
        }
        (geom::PLANE, geom::MESH) => {
            let mesh = mesh_data(m, g2);
            let polys = mesh_polys(m, g2);
            plane_mesh::plane_mesh(out, mg, p1, x1, p2, x2, &mesh, &polys);
        }
        (geom::PLANE, _) => {
            // deepest support point of the convex geom below the plane
            let n = [x1[2], x1[5], x1[8]];
            let sh = geom_shape(m, d, g2);
            let sp = sh.core.support(&scl3(&n, -1.0));
            let sp = add3(&sp, &scl3(&n, -sh.radius));
            let dist = dot3(&sub3(&sp, &[p1[0], p1[1], p1[2]]), &n);
            if dist <= mg {
                out.push(PreContact::new(dist, add3(&sp, &scl3(&n, -dist / 2.0)), n));
            }
        }
        (geom::SPHERE, geom::SPHERE) => {
            sphere_sphere(out, mg, p1, x1, s1[0], p2, x2, s2[0]);
        }
        (geom::SPHERE, geom::CAPSULE) => {
            sphere_capsule(out, mg, p1, x1, s1[0], p2, x2, s2);
        }
        (geom::SPHERE, geom::CYLINDER) => {
            sphere_cylinder(out, mg, p1, x1, s1[0], p2, x2, s2);
        }
        (geom::CAPSULE, geom::CAPSULE) => {
            capsule_capsule(out, mg, p1, x1, s1, p2, x2, s2);
        }
        (geom::SPHERE, geom::BOX) => {
            sphere_box(out, mg, p1, s1[0], p2, x2, s2);
        }
        (geom::CAPSULE, geom::BOX) => {
            capsule_box::capsule_box(out, mg, p1, x1, s1, p2, x2, s2);
        }
        (geom::BOX, geom::BOX) => {
            box_box::box_box(out, mg, p1, x1, s1, p2, x2, s2);
        }
        _ => {
            let a = geom_shape(m, d, g1);
            let b = geom_shape(m, d, g2);
            let (iters, tol) = (ccd_iterations(m), m.opt.ccd_tolerance);
            let max = multicontact::max_contacts(t1, t2, mg, m.opt.disabled(disable::MULTICCD));
            if max >= 2 {
                // polygon clipping of the touching features (mjc_Convex without margin)
                let fresh = (&meshsupport::Warm::new(), &meshsupport::Warm::new());
                convex::collide_upto(&mut cs.epa, out, mg, &a, &b, (iters, tol), fresh, max);
            } else if ![t1, t2]
                .iter()
                .any(|&t| t == geom::SPHERE || t == geom::ELLIPSOID)
                && !m.opt.disabled(disable::MULTICCD)
            {
                // one contact, then more from perturbed copies (mjc_Convex's multi-CCD)
                perturb::collide_multi(&mut cs.epa, out, mg, &a, &b, [r1, r2], iters, tol);
            } else {
                convex::collide(&mut cs.epa, out, mg, &a, &b, iters, tol);
            }
        }
    }
    if cs.pre.is_empty() {
        return;
    }
    let p = match ipair {
        Some(p) => pair_param(m, p),
        None => contact_param(m, g1 as i32, g2 as i32, -1, -1),
    };
    let pre = std::mem::take(&mut cs.pre);
    for pc in &pre {
        let ids = ([g1 as i32, g2 as i32], [-1, -1], [-1, -1], [-1, -1]);
        if !add_contact(m, d, pc, &p, margin, ids) {
            break;
        }
    }
    s.collision.pre = pre;
}
