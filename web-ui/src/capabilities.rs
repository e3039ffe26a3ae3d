//! What this device offers the playground, detected once on the page:
//! relaxed SIMD in the WebAssembly engine (Safari's rejects any module
//! with a relaxed-SIMD instruction), threads (a cross-origin isolated page
//! with `SharedArrayBuffer`, and the core count), and WebGPU (the adapter,
//! its key limits, `timestamp-query`). The page shows them in the Device
//! panel, greys out what is missing with the reason, and notes each
//! fallback instead of failing to load. The workers detect relaxed SIMD
//! for themselves (`cpu_rt::engine_has_relaxed_simd`), since they are the
//! ones that compile.
//!
//! The facts and their wording are pure (tested natively); detection
//! ([`detect`], [`detect_gpu`]) is wasm32 only.

use serde::{Deserialize, Serialize};

use crate::html::escape_html as escape;
use crate::thread_pool::pool_threads;

/// The WebGPU limits the panel shows: the ones the GPU backend checks
/// kernels against, and the largest buffer a kernel may bind.
pub const GPU_LIMITS: [&str; 5] = [
    "maxComputeInvocationsPerWorkgroup",
    "maxComputeWorkgroupSizeX",
    "maxComputeWorkgroupStorageSize",
    "maxComputeWorkgroupsPerDimension",
    "maxStorageBufferBindingSize",
];

/// This device, as far as the page can tell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Capabilities {
    /// `WebAssembly.validate` accepts a module with `f32x4.relaxed_madd`.
    pub relaxed_simd: bool,
    /// `crossOriginIsolated`.
    pub isolated: bool,
    /// `SharedArrayBuffer` exists.
    pub shared_memory: bool,
    /// `navigator.hardwareConcurrency`. (Whole numbers, as the limits
    /// below: the page sends them to the worker, and neither then needs a
    /// float formatter or parser for them.)
    pub cores: Option<u32>,
    pub gpu: Gpu,
}

/// WebGPU, once asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Gpu {
    Checking,
    /// Why there is none (no `navigator.gpu`, no adapter).
    Missing(String),
    Adapter(GpuAdapter),
}

/// A WebGPU adapter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuAdapter {
    /// Vendor and architecture (`"google swiftshader"`); may be empty.
    pub name: String,
    /// A software adapter (`isFallbackAdapter`).
    pub fallback: bool,
    /// The adapter has `timestamp-query` (kernels timed on the GPU).
    pub timestamp_query: bool,
    /// [`GPU_LIMITS`] the adapter reported, in that order.
    pub limits: Vec<(String, u64)>,
}

impl GpuAdapter {
    /// How the page names it (the GPU option's tooltip).
    pub fn label(&self) -> String {
        let name = if self.name.is_empty() {
            "this GPU"
        } else {
            &self.name
        };
        if self.fallback {
            format!("{name} (a software adapter)")
        } else {
            name.to_string()
        }
    }
}

/// Why the FMA backend is off on an engine without relaxed SIMD.
pub const NO_RELAXED_SIMD: &str = "this browser's WebAssembly engine has no relaxed SIMD (Safari has none), which relaxed FMA needs";

/// The note a page without relaxed SIMD shows: what runs instead.
pub const RELAXED_SIMD_FALLBACK_NOTE: &str = "This browser's WebAssembly has no relaxed SIMD: the CPU backend uses plain SIMD128 (multiply and add), and relaxed FMA is off.";

impl Capabilities {
    /// The FMA backend's availability: `Err` is the reason it is greyed out.
    pub fn fma(&self) -> Result<(), String> {
        if self.relaxed_simd {
            Ok(())
        } else {
            Err(NO_RELAXED_SIMD.into())
        }
    }

    /// Threads a CPU run may use, or why it runs on one.
    pub fn threads(&self) -> Result<u32, String> {
        pool_threads(self.isolated, self.shared_memory, self.cores.map(f64::from))
    }

    /// The visible notes for what this device lacks and what the page
    /// does instead (empty when nothing falls back).
    pub fn fallback_notes(&self) -> Vec<&'static str> {
        let mut notes = Vec::new();
        if !self.relaxed_simd {
            notes.push(RELAXED_SIMD_FALLBACK_NOTE);
        }
        notes
    }

    /// The Device panel: one row per capability (`data-cap`, and
    /// `data-ok` when present). HTML, set as the panel's content.
    pub fn panel_html(&self) -> String {
        let mut rows = String::new();
        let mut row = |cap: &str, title: &str, ok: Option<bool>, text: String| {
            let state = match ok {
                Some(true) => "yes",
                Some(false) => "no",
                None => "checking",
            };
            rows.push_str(&format!(
                "<tr data-cap=\"{cap}\" data-ok=\"{state}\"><th scope=\"row\">{title}</th><td class=\"cap-{state}\">{}</td></tr>",
                escape(&text)
            ));
        };
        row(
            "relaxed-simd",
            "Relaxed SIMD",
            Some(self.relaxed_simd),
            if self.relaxed_simd {
                "yes: the CPU backend can fuse multiply-adds (CPU + relaxed FMA)".into()
            } else {
                format!("no: {}", RELAXED_SIMD_FALLBACK_NOTE)
            },
        );
        let cores = self
            .cores
            .map_or("the browser does not say how many cores".into(), |c| {
                format!("{c} core{}", if c == 1 { "" } else { "s" })
            });
        match self.threads() {
            Ok(n) => row(
                "threads",
                "Threads",
                Some(true),
                format!("yes: {cores}, parallel loops split over {n} threads"),
            ),
            Err(why) => row(
                "threads",
                "Threads",
                Some(false),
                format!("no ({cores}): {why}"),
            ),
        }
        match &self.gpu {
            Gpu::Checking => row("webgpu", "WebGPU", None, "checking…".into()),
            Gpu::Missing(why) => row("webgpu", "WebGPU", Some(false), format!("no: {why}")),
            Gpu::Adapter(a) => {
                row(
                    "webgpu",
                    "WebGPU",
                    Some(true),
                    format!("yes: {}", a.label()),
                );
                row(
                    "timestamp-query",
                    "GPU timestamps",
                    Some(a.timestamp_query),
                    if a.timestamp_query {
                        "yes: kernels are timed on the GPU (timestamp-query)".into()
                    } else {
                        "no: kernels are timed with the wall clock (no timestamp-query)".into()
                    },
                );
                let limits = a
                    .limits
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                row("gpu-limits", "GPU limits", Some(true), limits);
            }
        }
        format!("<table class=\"caps-table\"><tbody>{rows}</tbody></table>")
    }
}

#[cfg(target_arch = "wasm32")]
pub use browser::*;

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::*;
    use js_sys::{Function, Promise, Reflect, Uint8Array, WebAssembly};
    use wasm_bindgen::{JsCast, JsValue};

    fn get(v: &JsValue, key: &str) -> JsValue {
        Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    /// The page's capabilities, WebGPU still [`Gpu::Checking`].
    pub fn detect() -> Capabilities {
        let global = js_sys::global();
        let probe = Uint8Array::from(codegen_wasm::backend::RELAXED_SIMD_PROBE);
        Capabilities {
            relaxed_simd: WebAssembly::validate(&probe.into()).unwrap_or(false),
            isolated: get(&global, "crossOriginIsolated")
                .as_bool()
                .unwrap_or(false),
            shared_memory: !get(&global, "SharedArrayBuffer").is_undefined(),
            cores: get(&get(&global, "navigator"), "hardwareConcurrency")
                .as_f64()
                .map(|c| c as u32),
            gpu: Gpu::Checking,
        }
    }

    /// Asks WebGPU for an adapter: its name, limits and timestamp support,
    /// or why there is none.
    pub async fn detect_gpu() -> Gpu {
        let gpu = get(&get(&js_sys::global(), "navigator"), "gpu");
        if gpu.is_undefined() || gpu.is_null() {
            return Gpu::Missing(
                "this browser has no WebGPU (navigator.gpu is missing; Chrome/Edge 113+, Firefox 141+ or Safari 26+ have it)".into(),
            );
        }
        let request = get(&gpu, "requestAdapter")
            .dyn_into::<Function>()
            .ok()
            .and_then(|f| f.call0(&gpu).ok())
            .and_then(|p| p.dyn_into::<Promise>().ok());
        let adapter = match request {
            Some(p) => wasm_bindgen_futures::JsFuture::from(p).await.ok(),
            None => None,
        };
        let Some(adapter) = adapter.filter(|a| !a.is_null() && !a.is_undefined()) else {
            return Gpu::Missing(
                "WebGPU has no adapter here (requestAdapter returned null: no usable GPU, or it is blocklisted)".into(),
            );
        };
        let info = get(&adapter, "info");
        let name = ["vendor", "architecture"]
            .into_iter()
            .filter_map(|k| get(&info, k).as_string().filter(|s| !s.is_empty()))
            .collect::<Vec<_>>()
            .join(" ");
        let features = get(&adapter, "features");
        let timestamp_query = get(&features, "has")
            .dyn_into::<Function>()
            .ok()
            .and_then(|has| has.call1(&features, &"timestamp-query".into()).ok())
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        let limits = get(&adapter, "limits");
        Gpu::Adapter(GpuAdapter {
            name,
            fallback: get(&info, "isFallbackAdapter").as_bool().unwrap_or(false),
            timestamp_query,
            limits: GPU_LIMITS
                .iter()
                .filter_map(|k| Some((k.to_string(), get(&limits, k).as_f64()? as u64)))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(relaxed_simd: bool, isolated: bool, gpu: Gpu) -> Capabilities {
        Capabilities {
            relaxed_simd,
            isolated,
            shared_memory: true,
            cores: Some(4),
            gpu,
        }
    }

    fn swiftshader(timestamp_query: bool) -> Gpu {
        Gpu::Adapter(GpuAdapter {
            name: "google swiftshader".into(),
            fallback: true,
            timestamp_query,
            limits: vec![
                ("maxComputeInvocationsPerWorkgroup".into(), 256),
                ("maxComputeWorkgroupStorageSize".into(), 32768),
            ],
        })
    }

    #[test]
    fn a_full_device_shows_every_fact_and_needs_no_note() {
        let caps = device(true, true, swiftshader(true));
        assert_eq!(caps.fma(), Ok(()));
        assert!(caps.fallback_notes().is_empty());
        let html = caps.panel_html();
        for want in [
            "<tr data-cap=\"relaxed-simd\" data-ok=\"yes\">",
            "yes: 4 cores, parallel loops split over 4 threads",
            "yes: google swiftshader (a software adapter)",
            "<tr data-cap=\"timestamp-query\" data-ok=\"yes\">",
            "maxComputeInvocationsPerWorkgroup 256, maxComputeWorkgroupStorageSize 32768",
        ] {
            assert!(html.contains(want), "missing {want:?} in {html}");
        }
    }

    #[test]
    fn what_is_missing_says_why_and_what_runs_instead() {
        let caps = device(false, false, Gpu::Missing("no <adapter>".into()));
        let why = caps.fma().unwrap_err();
        assert!(why.contains("no relaxed SIMD"), "{why}");
        assert_eq!(caps.fallback_notes(), vec![RELAXED_SIMD_FALLBACK_NOTE]);
        let html = caps.panel_html();
        assert!(
            html.contains("<tr data-cap=\"relaxed-simd\" data-ok=\"no\">"),
            "{html}"
        );
        assert!(html.contains("plain SIMD128"), "{html}");
        assert!(
            html.contains("<tr data-cap=\"threads\" data-ok=\"no\">"),
            "{html}"
        );
        assert!(html.contains("not cross-origin isolated"), "{html}");
        // Text from the browser is escaped.
        assert!(html.contains("no: no &lt;adapter&gt;"), "{html}");
        assert!(!html.contains("timestamp-query"), "{html}");
        let no_timer = device(true, true, swiftshader(false)).panel_html();
        assert!(no_timer.contains("<tr data-cap=\"timestamp-query\" data-ok=\"no\">"));
        let checking = device(true, true, Gpu::Checking).panel_html();
        assert!(checking.contains("data-ok=\"checking\""), "{checking}");
    }
}
