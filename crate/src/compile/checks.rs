//! The combination checks MuJoCo 3.15.0 runs at its compile-time test step (and again when
//! options change at run time). Messages are MuJoCo's; they surface as "engine error"s.

use crate::error::{Error, Result};
use crate::flexkind::{
    flex_contact_possible, flex_interp_assemblable, flex_metric_possible, flex_simple,
    flex_stiffness_possible,
};
use crate::model::{disable, enable, Integrator, Model, Solver};

fn engine(msg: &str) -> Error {
    Error::engine(msg)
}

/// Whether the discrete integrator's metric would need rank-one terms flexlab does not build:
/// tendon springs and dampers, and affine-gain or affine-bias actuators whose moment spans more
/// than one dof (tendon, site, ball or free joint transmissions). An actuator on a hinge or
/// slide joint is a per-dof term (`engine::metric::actuation`).
fn discrete_rank_one_terms(m: &Model) -> bool {
    let tendon = (0..m.ntendon).any(|t| m.tendon_stiffness[t] != 0.0 || m.tendon_damping[t] != 0.0);
    let actuator = (0..m.nu).any(|i| {
        let g = &m.actuator_gainprm[10 * i..10 * i + 3];
        let b = &m.actuator_biasprm[10 * i..10 * i + 3];
        let terms = (m.actuator_gaintype[i] == 1 && (g[1] != 0.0 || g[2] != 0.0))
            || (m.actuator_biastype[i] == 1 && (b[1] != 0.0 || b[2] != 0.0));
        let one_dof =
            m.actuator_trntype[i] == 0 && m.jnt_type[m.actuator_trnid[2 * i] as usize] >= 2;
        terms && !one_dof
    });
    tendon || actuator
}

/// Rejects option/flex combinations MuJoCo 3.15.0 rejects, with its messages.
pub fn check_engine(m: &Model) -> Result<()> {
    check_flex_bodies(m)?;
    check_options(m)
}

/// The per-flex compile errors (mocap attachments, damped vertex bodies, SNH integrator).
/// MuJoCo raises them while compiling the flexes, before tendons and actuators, so the
/// compiler calls this as soon as the flexes exist.
pub fn check_flex_bodies(m: &Model) -> Result<()> {
    let o = &m.opt;
    for f in 0..m.nflex {
        let name = &m.names_flex[f];
        // mocap attachments and damped vertex bodies (compile errors in MuJoCo)
        let bodies: Vec<i32> = if m.flex_interp[f] != 0 {
            let a = m.flex_nodeadr[f] as usize;
            m.flex_nodebodyid[a..a + m.flex_nodenum[f] as usize].to_vec()
        } else {
            let a = m.flex_vertadr[f] as usize;
            m.flex_vertbodyid[a..a + m.flex_vertnum[f] as usize].to_vec()
        };
        let young = m.flex_stiffnessadr[f] >= 0 || m.flex_bendingadr[f] >= 0;
        for &b in &bodies {
            let b = b as usize;
            if young && m.body_mocapid[b] >= 0 {
                return Err(Error::compile(format!(
                    "flex elasticity does not support mocap attachments, body '{}'",
                    m.names_body[b]
                ))
                .at_element("flex")
                .at_object(name));
            }
        }
        // MuJoCo checks the bodies that exist only to carry vertices or nodes (no geoms);
        // a user body a flex is pinned to may keep its joint damping
        let mut checked = std::collections::BTreeSet::new();
        for &b in &bodies {
            let b = b as usize;
            if !checked.insert(b) || m.body_dofnum[b] == 0 || m.body_geomnum[b] != 0 {
                continue;
            }
            let d0 = m.body_dofadr[b] as usize;
            if (d0..d0 + m.body_dofnum[b] as usize).any(|i| m.dof_damping[i] > 0.0) {
                return Err(Error::compile(format!(
                    "flex vertex/node body '{}' cannot have joint damping; use flex elasticity or edge damping instead",
                    m.names_body[b]
                ))
                .at_element("flex")
                .at_object(name));
            }
        }
        if m.flex_elastic3d[f] == 1 && o.integrator != Integrator::Discrete {
            return Err(Error::compile(
                "stable Neo-Hookean elasticity requires integrator='discrete'",
            )
            .at_element("flex")
            .at_object(name));
        }
    }
    Ok(())
}

/// Option/flex combinations MuJoCo's compile-time test step rejects.
fn check_options(m: &Model) -> Result<()> {
    let o = &m.opt;
    let any_stiff = (0..m.nflex).any(|f| flex_stiffness_possible(m, f));
    let any_contact = (0..m.nflex).any(|f| flex_contact_possible(m, f));
    let any_metric = any_stiff || any_contact;
    if o.integrator == Integrator::Discrete && discrete_rank_one_terms(m) {
        return Err(Error::unsupported(
            "tendon springs/dampers and position- or velocity-dependent actuators on tendons, sites, ball or free joints under integrator='discrete' (their effective-metric terms) are not supported by flexlab yet",
        ));
    }
    // MuJoCo 3.15.0 tests passive contact before elasticity (drape.xml has both and gets this one).
    if any_contact && o.integrator != Integrator::Discrete {
        return Err(engine("passive flex contact requires an integrator with the effective metric: set integrator='discrete'"));
    }
    match o.integrator {
        Integrator::Implicit | Integrator::ImplicitFast if any_stiff => {
            return Err(engine("flex elasticity is no longer integrated implicitly under integrator='implicit' and 'implicitfast': set integrator='discrete'"));
        }
        _ => {}
    }
    if o.integrator == Integrator::Discrete && any_metric {
        if o.solver == Solver::Pgs || o.noslip_iterations > 0 {
            return Err(engine(
                "discrete integrator: PGS and noslip not yet supported with flex",
            ));
        }
        if o.solver == Solver::Newton {
            if !flex_interp_assemblable(m) {
                return Err(engine("discrete integrator: interpolated flex with non-simple nodes not yet supported with the Newton solver"));
            }
            for f in 0..m.nflex {
                // interpolated flexes have no vertex bodies; their nodes are checked above
                if m.flex_interp[f] != 0 || !flex_metric_possible(m, f) || flex_simple(m, f) {
                    continue;
                }
                return Err(engine(
                    "discrete integrator: flex with general attachments requires solver='CG'",
                ));
            }
        }
    }
    // MuJoCo raises these at the first mj_forward (mj_checkDiscrete), flexlab when compiling
    if o.integrator == Integrator::Discrete && o.enabled(enable::SLEEP) {
        if (0..m.nflex).any(|f| flex_metric_possible(m, f)) {
            return Err(engine(
                "mj_checkDiscrete: discrete integrator: sleep with flex not yet supported",
            ));
        }
        if o.disabled(disable::ISLAND) {
            return Err(engine(
                "mj_checkDiscrete: discrete integrator: sleep without islands not yet supported",
            ));
        }
    }
    // options MuJoCo honours and flexlab does not model: refuse instead of ignoring them
    for (on, what) in [
        (
            o.enabled(enable::SLEEP),
            "the sleep flag (bodies at rest put to sleep)",
        ),
        (
            o.enabled(enable::DIAGEXACT),
            "the diagexact flag (the exact diagonal of the constraint inertia, which sets the constraints' impedance)",
        ),
        (
            o.disabled(disable::NATIVECCD),
            "nativeccd='disable' (libccd's convex collision)",
        ),
    ] {
        if on {
            return Err(Error::unsupported(format!("{what} is not supported by flexlab yet"))
                .at_element("flag"));
        }
    }
    if (o.density > 0.0 || o.viscosity > 0.0)
        && !matches!(o.integrator, Integrator::Euler | Integrator::Rk4)
    {
        // implicit, implicitfast and discrete would need the fluid's velocity derivative
        return Err(Error::unsupported(
            "fluid forces (option density/viscosity) are supported by flexlab under Euler and RK4 only",
        )
        .at_element("option"));
    }
    if o.noslip_iterations > 0 {
        return Err(Error::unsupported(
            "the noslip solver (noslip_iterations) is not supported by flexlab yet",
        )
        .at_element("option"));
    }
    // MuJoCo accepts it; h² + h·damping < 0 then scales the stiffness into an indefinite
    // effective metric, whose CG solve flexlab does not reproduce (a cloth 4e-5 m off after one
    // step)
    if let Some(f) = (0..m.nflex).find(|&f| m.flex_damping[f] < 0.0) {
        return Err(
            Error::unsupported("negative elasticity damping is not supported by flexlab")
                .at_element("flex")
                .at_object(&m.names_flex[f]),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::error::ErrorKind;
    use crate::mjcf::{parse, MemSource};

    fn compile(option: &str, flexcomp: &str) -> crate::Result<crate::Model> {
        let xml = format!(
            r#"<mujoco><option {option}</option><worldbody>
               <body pos="0 0 1"><freejoint/><geom size=".1"/></body>{flexcomp}</worldbody></mujoco>"#
        );
        super::super::compile(&parse(&xml, None, &MemSource::default())?)
    }

    const CLOTH: &str = r#"<flexcomp name="c" type="grid" dim="2" count="3 3 1" spacing=".1 .1 .1"
        radius=".01"><edge equality="true"/></flexcomp>"#;

    /// Flags that change MuJoCo's trajectory and that flexlab does not model are refused, not
    /// ignored (each changes a MuJoCo 3.15.0 run: sleep freezes a resting box, diagexact moves
    /// a CG cloth pair by 2 cm in 0.6 s).
    #[test]
    fn flags_flexlab_does_not_model_are_refused() {
        for flag in [
            r#"sleep="enable""#,
            r#"diagexact="enable""#,
            r#"nativeccd="disable""#,
        ] {
            let e = compile(&format!("><flag {flag}/>"), "").expect_err(flag);
            assert_eq!(e.kind, ErrorKind::Unsupported, "{flag}: {e}");
            assert!(e.to_string().contains("not supported by flexlab"), "{e}");
        }
        for flag in [
            r#"nativeccd="enable""#,
            r#"fwdinv="enable""#,
            r#"energy="enable""#,
        ] {
            compile(&format!("><flag {flag}/>"), CLOTH).expect(flag);
        }
    }

    /// A sweep and prune over 65536 active elements stops MuJoCo at its first step ("SAP
    /// failed"); flexlab refuses it when compiling, and accepts the same flex with a hierarchy.
    #[test]
    fn self_collision_sweep_beyond_mujocos_index_range_is_refused() {
        // 183 × 183 vertices: 2 · 182² = 66248 triangles
        let grid = |mode: &str| {
            format!(
                r#"<flexcomp name="big" type="grid" dim="2" count="183 183 1" spacing=".01 .01 .01"
                   radius=".001"><contact selfcollide="{mode}"/></flexcomp>"#
            )
        };
        for mode in ["auto", "sap"] {
            let e = compile(">", &grid(mode)).expect_err(mode);
            assert_eq!(e.kind, ErrorKind::Unsupported, "{mode}: {e}");
            assert!(e.to_string().contains("66248 active elements"), "{e}");
        }
        compile(">", &grid("bvh")).expect("bvh");
    }

    /// MuJoCo's own refusals of sleep under the discrete integrator come first.
    #[test]
    fn discrete_sleep_keeps_mujocos_messages() {
        let e = compile(
            r#"integrator="discrete"><flag sleep="enable"/>"#,
            r#"<flexcomp name="c" type="grid" dim="2" count="3 3 1" spacing=".1 .1 .1"
               radius=".01"><elasticity young="1e4" thickness="1e-3" elastic2d="stretch"/></flexcomp>"#,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("sleep with flex not yet supported"),
            "{e}"
        );
        let e = compile(
            r#"integrator="discrete"><flag sleep="enable" island="disable"/>"#,
            "",
        )
        .unwrap_err();
        assert!(e.to_string().contains("sleep without islands"), "{e}");
    }
}
