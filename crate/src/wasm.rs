//! The thin wasm-bindgen layer: a [`Scene`] owns one model and its data. Positions are exposed
//! as pointers into wasm memory so JavaScript can view them without copies; structured results
//! are JSON strings; every failure is a JS error carrying flexlab's message.

use crate::mjcf::MemSource;
use crate::trace::{json_str, num};
use crate::{Data, Model};
use wasm_bindgen::prelude::*;

/// The heap allocator of the browser build: Talc instead of the standard library's dlmalloc, a
/// smaller allocator for a build held under 500 kB gzip (issue 8). The step allocates nothing;
/// only loading a model, a lesson or a query does.
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// flexlab's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// JavaScript's `parseFloat` of a literal [`crate::decimal`] has checked.
pub(crate) fn js_parse_float(s: &str) -> f64 {
    js_parse_float_global(s)
}

// JavaScript's globals, imported directly: js-sys would bring its closure adapters along, which
// the step never calls (2 kB gzip of the wasm)
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = parseFloat)]
    fn js_parse_float_global(s: &str) -> f64;

    /// JavaScript's global `String`, of a number: its shortest round-trip decimal.
    #[wasm_bindgen(js_name = String)]
    fn js_string_of_number(x: f64) -> String;
}

/// JavaScript's `String(x)` of a finite nonzero number, for [`crate::decimal`].
pub(crate) fn js_number_text(x: f64) -> String {
    js_string_of_number(x)
}

/// The wasm linear memory, for zero-copy typed-array views.
#[wasm_bindgen]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// Numbers per contact in [`Scene::contacts`].
const CONTACT_STRIDE: usize = 19;

/// Most steps one call may take, so a script cannot hang the worker.
const MAX_STEPS_PER_CALL: u32 = 100_000;

fn js_err(e: crate::Error) -> JsError {
    JsError::new(&e.to_string())
}

/// A compiled model with its simulation state.
#[wasm_bindgen]
pub struct Scene {
    model: Model,
    data: Data,
    /// Compile warnings, each as printed (message, then its location line).
    warnings: Vec<String>,
}

#[wasm_bindgen]
impl Scene {
    /// Compiles MJCF text. The files its includes and meshes name come as their names and their
    /// contents one after the other in `file_bytes` (text as UTF-8), file `i` ending at
    /// `file_ends[i]`; `elastic3d` is a JSON object `{flexName: value}` setting the spec-only
    /// material.
    #[wasm_bindgen(constructor)]
    pub fn new(
        xml: &str,
        file_names: Vec<String>,
        file_bytes: &[u8],
        file_ends: &[u32],
        elastic3d: &str,
    ) -> Result<Scene, JsError> {
        let mut src = MemSource::default();
        let mut start = 0usize;
        for (name, &end) in file_names.into_iter().zip(file_ends) {
            let end = (end as usize).clamp(start, file_bytes.len());
            src.files.push((name, file_bytes[start..end].to_vec()));
            start = end;
        }
        // the model text has no file name (as MuJoCo's from_xml_string): its errors give a line
        // only, and an error in an included file names that file
        let mut spec = crate::mjcf::parse(xml, None, &src).map_err(js_err)?;
        for (name, value) in
            crate::spec::parse_elastic3d(elastic3d).map_err(|e| JsError::new(&e))?
        {
            spec.set_elastic3d(&name, value).map_err(js_err)?;
        }
        let model = crate::compile::compile(&spec).map_err(js_err)?;
        crate::compile::support::check_supported(&model).map_err(js_err)?;
        let warnings = crate::compile::warnings::warnings(&spec, &model)
            .iter()
            .map(|w| w.to_string())
            .collect();
        let mut data = Data::new(&model);
        if model.nkey > 0 {
            data.reset_keyframe(&model, 0);
        }
        crate::engine::forward(&model, &mut data);
        Ok(Scene {
            model,
            data,
            warnings,
        })
    }

    /// Advances `n` steps (capped); returns the number of steps taken.
    pub fn step(&mut self, n: u32) -> u32 {
        let n = n.min(MAX_STEPS_PER_CALL);
        for _ in 0..n {
            crate::engine::step(&self.model, &mut self.data);
        }
        n
    }

    /// Recomputes derived quantities without stepping (after editing state).
    pub fn forward(&mut self) {
        crate::engine::forward(&self.model, &mut self.data);
    }

    /// Back to the initial state (keyframe 0 if the model has one).
    pub fn reset(&mut self) {
        self.data.reset(&self.model);
        if self.model.nkey > 0 {
            self.data.reset_keyframe(&self.model, 0);
        }
        crate::engine::forward(&self.model, &mut self.data);
    }

    /// Simulation time (s).
    pub fn time(&self) -> f64 {
        self.data.time
    }

    pub fn timestep(&self) -> f64 {
        self.model.opt.timestep
    }

    /// Address (in f64 units) and length of a data array, for a zero-copy view.
    pub fn data_ptr(&self, name: &str) -> Result<Vec<u32>, JsError> {
        let f = self
            .data
            .a
            .field(name)
            .ok_or_else(|| JsError::new(&format!("no data field '{name}'")))?;
        match f {
            crate::fields::FieldRef::F64(s, _) => Ok(vec![s.as_ptr() as u32, s.len() as u32]),
            _ => Err(JsError::new(&format!(
                "data field '{name}' is not a float array"
            ))),
        }
    }

    /// Sizes, options and names as JSON: `{sizes, options, name, body, flex, geom, joint,
    /// actuator, tendon, site, warnings, stat}` (unnamed objects are empty strings, as in
    /// `mjModel.names`; `warnings` are the compile warnings, each with its location line).
    /// `options.sparse` is `mj_isSparse`: whether MuJoCo keeps `efc_J` sparse for this model.
    pub fn info(&self) -> String {
        let m = &self.model;
        let mut s = String::from("{\"sizes\":{");
        let mut first = true;
        for k in [
            "nq",
            "nv",
            "nu",
            "na",
            "ntendon",
            "nbody",
            "njnt",
            "ngeom",
            "nsite",
            "nflex",
            "nflexvert",
            "nflexnode",
            "nflexedge",
            "nflexelem",
            "neq",
            "nkey",
            "nmocap",
            "nflexelemdata",
            "nflexshelldata",
            "nflexstiffness",
            "nflexbending",
            "nJfe",
            "nmesh",
            "nmeshvert",
            "nmeshface",
            "nsensor",
            "nsensordata",
        ] {
            if !first {
                s.push(',');
            }
            first = false;
            s.push_str(&format!("\"{k}\":{}", m.size(k).unwrap_or(0)));
        }
        s.push_str("},\"options\":{\"timestep\":");
        num(&mut s, m.opt.timestep);
        s.push_str(&format!(
            ",\"integrator\":\"{}\",\"solver\":\"{}\",\"cone\":\"{}\",\"sparse\":{}}},\"name\":",
            m.opt.integrator.mjcf_name(),
            m.opt.solver.mjcf_name(),
            m.opt.cone.trace_name(),
            if crate::engine::constraint::sparse_jacobian(m) {
                "true"
            } else {
                "false"
            }
        ));
        json_str(&mut s, &m.name);
        let names = |s: &mut String, key: &str, v: &[String]| {
            s.push_str(&format!(",\"{key}\":["));
            for (i, n) in v.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                json_str(s, n);
            }
            s.push(']');
        };
        names(&mut s, "body", &m.names_body);
        names(&mut s, "flex", &m.names_flex);
        names(&mut s, "geom", &m.names_geom);
        names(&mut s, "joint", &m.names_jnt);
        names(&mut s, "actuator", &m.names_actuator);
        names(&mut s, "tendon", &m.names_tendon);
        names(&mut s, "site", &m.names_site);
        names(&mut s, "sensor", &m.names_sensor);
        names(&mut s, "warnings", &self.warnings);
        s.push_str(",\"stat\":{\"center\":[");
        for k in 0..3 {
            if k > 0 {
                s.push(',');
            }
            num(&mut s, m.stat.center[k]);
        }
        s.push_str("],\"extent\":");
        num(&mut s, m.stat.extent);
        s.push_str("}}");
        s
    }

    /// A model field by MuJoCo name, copied (a Float64Array in JavaScript).
    pub fn model_field(&self, name: &str) -> Result<Vec<f64>, JsError> {
        let f = self
            .model
            .field(name)
            .ok_or_else(|| JsError::new(&format!("no model field '{name}'")))?;
        Ok(f.to_f64())
    }

    /// Row width of a model or data field.
    pub fn field_cols(&self, name: &str) -> u32 {
        self.model
            .field(name)
            .or_else(|| self.data.field(name))
            .map(|f| f.cols() as u32)
            .unwrap_or(0)
    }

    /// A data field by MuJoCo name, copied (trimmed to the current contact/row counts).
    pub fn data_field(&self, name: &str) -> Result<Vec<f64>, JsError> {
        let f = self
            .data
            .field(name)
            .ok_or_else(|| JsError::new(&format!("no data field '{name}'")))?;
        Ok(f.to_f64())
    }

    /// Names of every model and data array, as JSON `{"model":[…],"data":[…]}`.
    pub fn field_names(&self) -> String {
        let mut s = String::from("{\"model\":[");
        for (i, n) in Model::ARRAY_NAMES.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            json_str(&mut s, n);
        }
        s.push_str("],\"data\":[");
        for (i, n) in crate::data::DataArrays::NAMES.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            json_str(&mut s, n);
        }
        s.push_str("]}");
        s
    }

    /// Counts of each warning kind as JSON, with MuJoCo's names and texts.
    pub fn warnings(&self) -> String {
        let mut s = String::from("[");
        let mut first = true;
        for w in crate::data::Warning::ALL {
            let st = self.data.warning[w as usize];
            if st.number == 0 {
                continue;
            }
            if !first {
                s.push(',');
            }
            first = false;
            s.push_str(&format!(
                "{{\"kind\":\"{}\",\"count\":{},\"text\":",
                w.name(),
                st.number
            ));
            json_str(&mut s, &w.text(st.lastinfo));
            s.push('}');
        }
        s.push(']');
        s
    }

    /// Sets a force on a body (xfrc_applied, N and N·m at the body's centre of mass).
    pub fn set_body_force(&mut self, body: u32, fx: f64, fy: f64, fz: f64) {
        let b = body as usize;
        if b < self.model.nbody {
            self.data.a.xfrc_applied[6 * b..6 * b + 6]
                .copy_from_slice(&[fx, fy, fz, 0.0, 0.0, 0.0]);
        }
    }

    /// Clears all applied forces.
    pub fn clear_forces(&mut self) {
        self.data.a.xfrc_applied.fill(0.0);
        self.data.a.qfrc_applied.fill(0.0);
    }

    /// Number of detected contacts.
    pub fn ncon(&self) -> u32 {
        self.data.ncon as u32
    }

    /// Number of constraint rows.
    pub fn nefc(&self) -> u32 {
        self.data.nefc as u32
    }

    /// Energies (J) of the current state: MuJoCo's potential and kinetic (`mj_energyPos`,
    /// `mj_energyVel`, computed now whatever the `energy` flag), then the elastic energy of each
    /// flex (stretch and bending), which MuJoCo's `energy` leaves out.
    pub fn energies(&mut self) -> Vec<f64> {
        crate::engine::energy::energy(&self.model, &mut self.data);
        let mut out = vec![self.data.energy[0], self.data.energy[1]];
        for f in 0..self.model.nflex {
            out.push(crate::engine::elastic::elastic_energy(
                &self.model,
                &self.data,
                f,
            ));
        }
        out
    }

    /// The detected contacts (`mjData.contact[:ncon]`), `CONTACT_STRIDE` (19) numbers each:
    /// dist, pos (3), frame row 0 = normal (3), geom (2), flex (2), elem (2), vert (2), dim,
    /// exclude, efc_address, adhesion.
    pub fn contacts(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.data.ncon * CONTACT_STRIDE);
        for c in &self.data.contact[..self.data.ncon.min(self.data.contact.len())] {
            out.push(c.dist);
            out.extend_from_slice(&c.pos);
            out.extend_from_slice(&c.frame[..3]);
            for pair in [c.geom, c.flex, c.elem, c.vert] {
                out.push(pair[0] as f64);
                out.push(pair[1] as f64);
            }
            out.push(c.dim as f64);
            out.push(c.exclude as f64);
            out.push(c.efc_address as f64);
            out.push(c.adhesion);
        }
        out
    }
}

// ============================================================================ lessons
// The lesson API for the browser's worker (lessons/README.md, "The lesson API"). Thin by
// design: every decision is made in crate::lessons, which `flexlab lessons check` runs too.

/// A lesson read from its files; prepares scenes, runs measured checks and judges answers.
#[wasm_bindgen]
pub struct Lesson {
    bundle: crate::lessons::Bundle,
}

#[wasm_bindgen]
impl Lesson {
    /// Opens a compiled lesson, as `flexlab lessons bundle` writes it when the page is built
    /// (crate::lessons::wire). Problems the lesson reader found are listed in
    /// `bundle().errors`; input that is not a compiled lesson throws, naming the bad field.
    #[wasm_bindgen(constructor)]
    pub fn new(compiled_json: &str) -> Result<Lesson, JsError> {
        let bundle = crate::lessons::api::open(compiled_json).map_err(|e| JsError::new(&e))?;
        Ok(Lesson { bundle })
    }

    /// The lesson as JSON: `{id, title, sections, scenes, exercises, measurements, errors}`.
    pub fn bundle(&self) -> String {
        crate::lessons::api::bundle_json(&self.bundle)
    }

    /// A scene with parameter values (`params_json`: `{name: value}`) applied, as JSON
    /// `{xml, elastic3d, files}` for the `Scene` constructor.
    pub fn prepare_scene(&self, scene_id: &str, params_json: &str) -> Result<String, JsError> {
        crate::lessons::api::prepare_scene_json(&self.bundle, scene_id, params_json)
            .map_err(|e| JsError::new(&e))
    }

    /// Runs the measured check of an exercise or measurement (bounded work): JSON
    /// `{value, pending, runs}`.
    pub fn measure(&self, exercise_id: &str) -> Result<String, JsError> {
        crate::lessons::api::measure_json(&self.bundle, exercise_id).map_err(|e| JsError::new(&e))
    }

    /// Judges an answer (`answer_json`: a number or a choice id string) against what
    /// `measure` returned: JSON `{correct, feedback: {zh, en}, explain: {zh, en}}`.
    pub fn judge(
        &self,
        exercise_id: &str,
        answer_json: &str,
        measured_json: &str,
    ) -> Result<String, JsError> {
        crate::lessons::api::judge_json(&self.bundle, exercise_id, answer_json, measured_json)
            .map_err(|e| JsError::new(&e))
    }
}
