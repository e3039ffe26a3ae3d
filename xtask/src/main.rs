//! `cargo xtask`: Tessel's developer commands (setup, serve, build-web, test, bench).
//!
//! Plain std, no dependencies, so it builds in a second on a fresh machine.
//! Every external tool it needs is installed by `setup`, which checks first and
//! skips what is already there. Run `cargo xtask help` for the commands.

mod bench;
mod layers;
// Shared with web-ui's build script, which also uses what this file does not.
#[allow(dead_code)]
#[path = "../../web-ui/gallery.rs"]
mod gallery;

use std::env;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{self, Command};
use std::time::{Duration, Instant};

/// Pinned tool versions. wasm-bindgen is not here: it is read from Cargo.lock.
const TRUNK_VERSION: &str = "0.21.14";
const BINARYEN_VERSION: &str = "132";
const TVM_REQUIREMENTS: &[&str] = &["apache-tvm==0.27.0.post1", "numpy"];
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// Crates that must build for the browser (no fs, threads or clocks).
const WASM32_CRATES: &[&str] = &[
    "tessel-syntax",
    "tessel-ir",
    "tessel-tir",
    "tessel-lower",
    "tessel-schedule",
    "tessel-frontend",
    "compiler-core",
    "tessel-script",
    "codegen-wasm",
    "codegen-wgsl",
    "tessel-course",
    "tessel-tune",
];
/// Trunk.toml's `[watch] ignore` folders (made before trunk runs).
const TRUNK_WATCH_IGNORED: &[&str] = &["web-ui/editor/build", "web-ui/editor/node_modules"];
/// How long the `serve` step waits for `cargo xtask serve`'s first (debug)
/// build and page.
const SERVE_SMOKE_TIMEOUT: Duration = Duration::from_secs(20 * 60);
const DIFFERENTIAL_SCRIPT: &str = "tools/tvm_oracle/differential.py";

type Result<T> = std::result::Result<T, Failure>;

/// Why something failed, and the exit code to leave with.
#[derive(Debug)]
struct Failure {
    message: String,
    code: i32,
}

impl Failure {
    fn new(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: 1,
        }
    }
}

fn fail<T>(message: impl Into<String>) -> Result<T> {
    Err(Failure::new(message))
}

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  setup                 install everything builds and tests need (skips what is there)
  serve [--port N]      build and serve the playground on http://127.0.0.1:N/ (default 8080)
  build-web             release build of the playground into dist/ (relative URLs)
  test [options]        run every check, stopping at the first failure
      --skip-web        skip the web build and the browser tests (and their setup)
      --only STEP[,..]  run only these steps (repeatable)
      --skip STEP[,..]  skip these steps (repeatable)
      steps: fmt, clippy, test, wasm32, serve, web, e2e, differential
  bench [options]       CPU and GPU matmul benchmarks vs LLVM and Apache TVM, whole models vs ONNX Runtime Web and TF.js, as Markdown tables
      --quick           256x256 matrices, fewer runs
      --cpu-only, --gpu-only
  layers                each crate's top-level modules bottom-up; fails on a module cycle
  gallery-json          the examples gallery's sources and descriptions as JSON on stdout (the web
                        build's hook writes it to dist/examples.json)
  help                  this text

environment:
  CARGO_TARGET_DIR      where cargo builds (respected everywhere)
  TESSEL_CACHE          tool cache (default ~/.cache/tessel): binaryen, TVM venv
  TESSEL_TVM_PYTHON     a python that can `import tvm`; used instead of the cache venv
";

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match Ctx::new() {
        Ok(ctx) => dispatch(&ctx, &args),
        Err(e) => Err(e),
    };
    if let Err(e) = result {
        if !e.message.is_empty() {
            eprintln!("xtask: error: {}", e.message);
        }
        process::exit(e.code);
    }
}

fn dispatch(ctx: &Ctx, args: &[String]) -> Result<()> {
    let Some((command, rest)) = args.split_first() else {
        print!("{USAGE}");
        return Ok(());
    };
    match command.as_str() {
        "setup" => {
            no_extra_args(rest)?;
            ctx.setup(&Part::ALL)
        }
        "serve" => serve(ctx, rest),
        "build-web" => {
            no_extra_args(rest)?;
            build_web(ctx)
        }
        "test" => test(ctx, rest),
        "bench" => bench::bench(ctx, rest),
        "layers" => {
            no_extra_args(rest)?;
            layers::report(&ctx.root).map_err(Failure::new)
        }
        "gallery-json" => {
            no_extra_args(rest)?;
            gallery_json(ctx)
        }
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => fail(format!("unknown command `{other}`\n\n{USAGE}")),
    }
}

fn no_extra_args(rest: &[String]) -> Result<()> {
    match rest.first() {
        Some(arg) => fail(format!("unexpected argument `{arg}`")),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// Context: where things are, and how to run commands.

struct Ctx {
    /// Repository root (the workspace).
    root: PathBuf,
    /// Tool cache: `$TESSEL_CACHE` or `~/.cache/tessel`.
    cache: PathBuf,
    /// PATH with cargo's bin dir and the cached binaryen in front.
    path: OsString,
}

impl Ctx {
    fn new() -> Result<Ctx> {
        // `cargo run` sets CARGO_MANIFEST_DIR at run time too: prefer it, so a
        // binary built in a target dir shared by several checkouts works on
        // the checkout that ran it, not the one that last compiled it.
        let manifest_dir = env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
        let root = manifest_dir
            .parent()
            .ok_or_else(|| Failure::new("xtask must live in a subdirectory of the workspace"))?
            .to_path_buf();
        let home = env::var_os("HOME").map(PathBuf::from);
        let cache = match env::var_os("TESSEL_CACHE") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => home
                .as_ref()
                .map(|h| h.join(".cache").join("tessel"))
                .ok_or_else(|| Failure::new("neither TESSEL_CACHE nor HOME is set"))?,
        };
        let cargo_bin = match env::var_os("CARGO_HOME") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("bin"),
            _ => home.unwrap_or_default().join(".cargo").join("bin"),
        };
        let mut dirs = vec![binaryen_bin(&cache), cargo_bin];
        dirs.extend(env::split_paths(&env::var_os("PATH").unwrap_or_default()));
        let path = env::join_paths(dirs).map_err(|e| Failure::new(format!("bad PATH: {e}")))?;
        Ok(Ctx { root, cache, path })
    }

    /// A command that runs in the repository root with our PATH.
    fn cmd(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.root).env("PATH", &self.path);
        // wgpu's Vulkan loader complains on every adapter request when the
        // session has no runtime dir (as under CI): give it a private one.
        if env::var_os("XDG_RUNTIME_DIR").is_none() {
            if let Some(dir) = private_runtime_dir() {
                cmd.env("XDG_RUNTIME_DIR", dir);
            }
        }
        cmd
    }

    /// Runs a command, echoing it first; fails if it cannot start or exits non-zero.
    fn run(&self, cmd: &mut Command) -> Result<()> {
        println!("xtask: $ {}", show(cmd));
        let status = cmd.status().map_err(|e| {
            Failure::new(format!(
                "could not start `{}`: {e} (is it installed and on PATH?)",
                cmd.get_program().to_string_lossy()
            ))
        })?;
        if status.success() {
            Ok(())
        } else {
            Err(Failure {
                message: format!("`{}` failed ({status})", show(cmd)),
                code: status.code().unwrap_or(1),
            })
        }
    }

    /// Stdout of a command if it ran and succeeded (used for quiet checks).
    fn output(&self, program: &str, args: &[&str]) -> Option<String> {
        let out = self.cmd(program).args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Cargo's target directory, as cargo itself resolves it (honours
    /// `CARGO_TARGET_DIR` and config).
    fn target_dir(&self) -> Result<PathBuf> {
        let json = self
            .output("cargo", &["metadata", "--format-version", "1", "--no-deps"])
            .ok_or_else(|| Failure::new("`cargo metadata` failed"))?;
        json_string_field(&json, "target_directory")
            .map(PathBuf::from)
            .ok_or_else(|| Failure::new("no target_directory in `cargo metadata` output"))
    }

    fn dist(&self) -> PathBuf {
        self.root.join("dist")
    }
}

/// A `0700` folder in the temp dir for `XDG_RUNTIME_DIR`, made once.
fn private_runtime_dir() -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let dir = env::temp_dir().join("tessel-xdg-runtime");
    fs::create_dir_all(&dir).ok()?;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).ok()?;
    Some(dir)
}

fn binaryen_bin(cache: &Path) -> PathBuf {
    cache
        .join(format!("binaryen-{BINARYEN_VERSION}"))
        .join("node_modules")
        .join(".bin")
}

fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        let arg = arg.to_string_lossy();
        if arg.is_empty() || arg.contains(' ') {
            let _ = write!(s, " '{arg}'");
        } else {
            let _ = write!(s, " {arg}");
        }
    }
    s
}

/// The string value of `"key":"..."` in a JSON text (enough for cargo metadata).
fn json_string_field(json: &str, key: &str) -> Option<String> {
    let start = json.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let mut value = String::new();
    let mut chars = json[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => match chars.next()? {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                other => value.push(other),
            },
            c => value.push(c),
        }
    }
    None
}

/// The version of `name` recorded in Cargo.lock.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let needle = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == needle {
            let version = lines.next()?.trim();
            return version
                .strip_prefix("version = \"")?
                .strip_suffix('"')
                .map(str::to_owned);
        }
    }
    None
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

// ---------------------------------------------------------------------------
// setup

/// One installable thing. Each checks first and installs only when missing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Part {
    RustComponents,
    Wasm32Target,
    Trunk,
    WasmBindgen,
    Binaryen,
    CrateSources,
    E2eNpm,
    Chromium,
    TvmVenv,
}

impl Part {
    const ALL: [Part; 9] = [
        Part::RustComponents,
        Part::Wasm32Target,
        Part::Trunk,
        Part::WasmBindgen,
        Part::Binaryen,
        Part::CrateSources,
        Part::E2eNpm,
        Part::Chromium,
        Part::TvmVenv,
    ];
    /// What `trunk build` / `trunk serve` need.
    const WEB: [Part; 5] = [
        Part::Wasm32Target,
        Part::Trunk,
        Part::WasmBindgen,
        Part::Binaryen,
        Part::CrateSources,
    ];
}

impl Ctx {
    fn setup(&self, parts: &[Part]) -> Result<()> {
        let started = Instant::now();
        for part in Part::ALL.iter().filter(|p| parts.contains(p)) {
            match part {
                Part::RustComponents => self.setup_rust_components()?,
                Part::Wasm32Target => self.setup_wasm32_target()?,
                Part::Trunk => self.setup_trunk()?,
                Part::WasmBindgen => self.setup_wasm_bindgen()?,
                Part::Binaryen => self.setup_binaryen()?,
                Part::CrateSources => self.setup_crate_sources()?,
                Part::E2eNpm => self.setup_e2e_npm()?,
                Part::Chromium => self.setup_chromium()?,
                Part::TvmVenv => {
                    self.tvm_python()?;
                }
            }
        }
        println!("xtask: setup done in {}", secs(started.elapsed()));
        Ok(())
    }

    fn setup_rust_components(&self) -> Result<()> {
        let have_fmt = self.output("cargo", &["fmt", "--version"]).is_some();
        let have_clippy = self.output("cargo", &["clippy", "--version"]).is_some();
        if have_fmt && have_clippy {
            println!("xtask: ok: rustfmt and clippy");
            return Ok(());
        }
        self.run(
            self.cmd("rustup")
                .args(["component", "add", "rustfmt", "clippy"]),
        )
    }

    fn setup_wasm32_target(&self) -> Result<()> {
        let installed = self
            .output("rustup", &["target", "list", "--installed"])
            .ok_or_else(|| {
                Failure::new("`rustup` not found: install Rust with rustup (https://rustup.rs)")
            })?;
        if installed
            .lines()
            .any(|l| l.trim() == "wasm32-unknown-unknown")
        {
            println!("xtask: ok: rust target wasm32-unknown-unknown");
            return Ok(());
        }
        self.run(
            self.cmd("rustup")
                .args(["target", "add", "wasm32-unknown-unknown"]),
        )
    }

    /// `cargo install` into ~/.cargo/bin, building in cargo's own temp dir
    /// (not the workspace's CARGO_TARGET_DIR).
    fn cargo_install(&self, args: &[&str]) -> Result<()> {
        let mut cmd = self.cmd("cargo");
        cmd.arg("install").args(args).env_remove("CARGO_TARGET_DIR");
        self.run(&mut cmd)
    }

    fn setup_trunk(&self) -> Result<()> {
        let have = self.output("trunk", &["--version"]).unwrap_or_default();
        if have.split_whitespace().nth(1) == Some(TRUNK_VERSION) {
            println!("xtask: ok: trunk {TRUNK_VERSION}");
            return Ok(());
        }
        println!("xtask: installing trunk {TRUNK_VERSION} (about 15 minutes on 2 cores)");
        self.cargo_install(&["--locked", "trunk", "--version", TRUNK_VERSION])
    }

    fn setup_wasm_bindgen(&self) -> Result<()> {
        let lock = fs::read_to_string(self.root.join("Cargo.lock"))
            .map_err(|e| Failure::new(format!("cannot read Cargo.lock: {e}")))?;
        let Some(want) = locked_version(&lock, "wasm-bindgen") else {
            return fail("Cargo.lock has no wasm-bindgen (is web-ui a workspace member?)");
        };
        let have = self
            .output("wasm-bindgen", &["--version"])
            .unwrap_or_default();
        if have.split_whitespace().nth(1) == Some(want.as_str()) {
            println!("xtask: ok: wasm-bindgen {want}");
            return Ok(());
        }
        // Not --locked: its lockfile pins a webpki-roots the registry lacks.
        println!("xtask: installing wasm-bindgen-cli {want} (matches Cargo.lock)");
        self.cargo_install(&["wasm-bindgen-cli", "--version", &want])
    }

    fn setup_binaryen(&self) -> Result<()> {
        let dir = self.cache.join(format!("binaryen-{BINARYEN_VERSION}"));
        let wasm_opt = binaryen_bin(&self.cache).join("wasm-opt");
        let have = self
            .output(&wasm_opt.to_string_lossy(), &["--version"])
            .unwrap_or_default();
        if have.contains(&format!("version {BINARYEN_VERSION}")) {
            println!("xtask: ok: wasm-opt {BINARYEN_VERSION} (npm binaryen)");
            return Ok(());
        }
        fs::create_dir_all(&dir)
            .map_err(|e| Failure::new(format!("cannot create {}: {e}", dir.display())))?;
        let mut cmd = self.cmd("npm");
        cmd.arg("install")
            .arg("--prefix")
            .arg(&dir)
            .args(["--no-audit", "--no-fund", "--loglevel=error"])
            .arg(format!("binaryen@{BINARYEN_VERSION}"));
        self.run(&mut cmd)
    }

    /// trunk runs cargo with --offline (Trunk.toml), so fetch crates first.
    fn setup_crate_sources(&self) -> Result<()> {
        println!("xtask: $ cargo fetch");
        let status = self
            .cmd("cargo")
            .args(["fetch", "--quiet"])
            .status()
            .map_err(|e| Failure::new(format!("could not run cargo: {e}")))?;
        if status.success() {
            println!("xtask: ok: crate sources");
            Ok(())
        } else {
            fail("`cargo fetch` failed")
        }
    }

    fn setup_e2e_npm(&self) -> Result<()> {
        let e2e = self.root.join("e2e");
        let manifest = fs::read_to_string(e2e.join("package.json"))
            .map_err(|e| Failure::new(format!("cannot read e2e/package.json: {e}")))?;
        let want = json_string_field(&manifest.replace(": ", ":"), "playwright-core")
            .ok_or_else(|| Failure::new("e2e/package.json does not pin playwright-core"))?;
        let installed = fs::read_to_string(e2e.join("node_modules/playwright-core/package.json"))
            .ok()
            .and_then(|m| json_string_field(&m.replace(": ", ":"), "version"));
        if installed.as_deref() == Some(want.as_str()) {
            println!("xtask: ok: playwright-core {want}");
            return Ok(());
        }
        let mut cmd = self.cmd("npm");
        cmd.current_dir(&e2e)
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
        self.run(&mut cmd)
    }

    fn setup_chromium(&self) -> Result<()> {
        // Mesa's lavapipe (software Vulkan): the WebGPU adapter the GPU
        // backend's tests run on when the machine has no GPU.
        let lavapipe = std::fs::read_dir("/usr/share/vulkan/icd.d")
            .map(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with("lvp_icd"))
            })
            .unwrap_or(false);
        if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() && lavapipe {
            println!("xtask: ok: chromium, lavapipe");
            return Ok(());
        }
        if self.output("apt-get", &["--version"]).is_none() {
            return fail(format!(
                "{CHROMIUM} is missing and apt-get is not available: install Chromium so that {CHROMIUM} exists"
            ));
        }
        let apt = |args: &[&str]| {
            let mut cmd = if is_root() {
                self.cmd("apt-get")
            } else {
                let mut sudo = self.cmd("sudo");
                sudo.arg("apt-get");
                sudo
            };
            cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
            cmd
        };
        self.run(&mut apt(&["update", "-q"]))?;
        self.run(&mut apt(&[
            "install",
            "-y",
            "-q",
            "chromium",
            "chromium-driver",
            "mesa-vulkan-drivers",
        ]))
    }

    /// A python with TVM: `$TESSEL_TVM_PYTHON`, else the cache venv (created
    /// and filled on first use).
    fn tvm_python(&self) -> Result<PathBuf> {
        let can_import = |python: &Path| {
            self.cmd(&python.to_string_lossy())
                .args(["-c", "import tvm, numpy"])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        };
        if let Some(python) = env::var_os("TESSEL_TVM_PYTHON").filter(|p| !p.is_empty()) {
            let python = PathBuf::from(python);
            if can_import(&python) {
                println!(
                    "xtask: ok: TVM python {} (TESSEL_TVM_PYTHON)",
                    python.display()
                );
                return Ok(python);
            }
            return fail(format!(
                "TESSEL_TVM_PYTHON={} cannot `import tvm, numpy`",
                python.display()
            ));
        }
        let venv = self.cache.join("tvm-venv");
        let python = venv.join("bin").join("python");
        if can_import(&python) {
            println!("xtask: ok: TVM venv {}", venv.display());
            return Ok(python);
        }
        if !python.exists() {
            let mut make_venv = self.cmd("python3");
            make_venv.args(["-m", "venv"]).arg(&venv);
            if self.run(&mut make_venv).is_err() {
                return fail(format!(
                    "could not create the TVM venv at {}: is python3-venv installed \
                     (Debian: `apt-get install python3-venv`)? Or set TESSEL_TVM_PYTHON \
                     to a python that can `import tvm`.",
                    venv.display()
                ));
            }
        }
        let mut pip = self.cmd(&python.to_string_lossy());
        pip.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(TVM_REQUIREMENTS);
        self.run(&mut pip)?;
        if !can_import(&python) {
            return fail(format!("{} still cannot `import tvm`", python.display()));
        }
        Ok(python)
    }
}

// ---------------------------------------------------------------------------
// serve / build-web

fn trunk(ctx: &Ctx, args: &[&str]) -> Command {
    // trunk canonicalizes every `[watch] ignore` path at start-up and fails
    // on one that does not exist yet, as on a fresh clone before the first
    // editor build.
    for dir in TRUNK_WATCH_IGNORED {
        let _ = fs::create_dir_all(ctx.root.join(dir));
    }
    let mut cmd = ctx.cmd("trunk");
    cmd.args(args)
        .arg("--config")
        .arg(ctx.root.join("Trunk.toml"))
        .env("TRUNK_SKIP_VERSION_CHECK", "true");
    cmd
}

fn serve(ctx: &Ctx, rest: &[String]) -> Result<()> {
    let mut port = String::from("8080");
    let mut args = rest.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" | "-p" => {
                port = args
                    .next()
                    .ok_or_else(|| Failure::new("--port needs a number"))?
                    .clone();
            }
            other => match other.strip_prefix("--port=") {
                Some(p) => port = p.to_string(),
                None => return fail(format!("unexpected argument `{other}`")),
            },
        }
    }
    if port.parse::<u16>().is_err() {
        return fail(format!("bad port `{port}`"));
    }
    ctx.setup(&Part::WEB)?;
    println!("xtask: serving the playground at http://127.0.0.1:{port}/ (Ctrl-C to stop)");
    ctx.run(&mut trunk(
        ctx,
        &["serve", "--address", "127.0.0.1", "--port", &port],
    ))
}

/// The README's first command, checked: starts `cargo xtask serve` as a
/// user would (in this checkout, on a free port), waits for the page, and
/// has Chromium load it once and see the playground render
/// (`e2e/serve_smoke.mjs`). Stops the server either way.
fn serve_smoke(ctx: &Ctx) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| Failure::new(format!("no free port: {e}")))?;
    let mut server = ctx.cmd("cargo");
    server
        .args(["xtask", "serve", "--port", &port.to_string()])
        .current_dir(&ctx.root)
        .stdin(process::Stdio::null())
        // Its own process group, so stopping it stops trunk too.
        .process_group(0);
    println!("xtask: $ {}", show(&server));
    let mut child = server
        .spawn()
        .map_err(|e| Failure::new(format!("cannot start `cargo xtask serve`: {e}")))?;
    let smoke = ctx.run(
        ctx.cmd("node")
            .arg("e2e/serve_smoke.mjs")
            .arg(format!("http://127.0.0.1:{port}/"))
            .arg(SERVE_SMOKE_TIMEOUT.as_secs().to_string()),
    );
    let _ = Command::new("kill")
        .args(["-s", "TERM", "--", &format!("-{}", child.id())])
        .status();
    let _ = child.wait();
    smoke
}

fn build_web(ctx: &Ctx) -> Result<()> {
    ctx.setup(&Part::WEB)?;
    trunk_build(ctx)?;
    report_bundle(ctx);
    Ok(())
}

/// Prints `{ "id": "source", … }` for every gallery example (see
/// `web-ui/gallery.rs`): the page fetches it instead of carrying every
/// source in the UI's wasm.
fn gallery_json(ctx: &Ctx) -> Result<()> {
    let all = gallery::collect(&ctx.root.join("web-ui"), &mut Vec::new());
    let mut sources = serde_json::Map::new();
    let mut descriptions = serde_json::Map::new();
    for ex in all {
        descriptions.insert(ex.id.clone(), serde_json::Value::String(ex.description));
        sources.insert(ex.id, serde_json::Value::String(ex.source));
    }
    // web-ui's `examples::GalleryFile`.
    let file = serde_json::json!({ "sources": sources, "descriptions": descriptions });
    let text = serde_json::to_string(&file).map_err(|e| Failure::new(e.to_string()))?;
    println!("{text}");
    Ok(())
}

fn trunk_build(ctx: &Ctx) -> Result<()> {
    ctx.run(&mut trunk(ctx, &["build", "--release"]))?;
    println!("xtask: built {}", ctx.dist().display());
    Ok(())
}

/// Files of dist/ a page fetches only when it needs them: the full worker
/// (the code generators, on the first use of a backend), the gallery's
/// sources (when an example is opened), the exercise catalogue (for course
/// tools, not the page), the console's Markdown renderer and HTML
/// sanitiser (when it first shows rich output; exercise statements come
/// rendered) and the icon's unhashed copy (for the manifest). The exercise
/// list and each exercise live under `exercises/` (not counted here: a page
/// fetches the list and the one it opens). The browser tests check what an
/// embedded exercise really fetches.
const LATER_FILES: &[&str] = &[
    "tessel-markdown.js",
    "tessel-rich.js",
    "worker.js",
    "worker_bg.wasm",
    "worker_loader.js",
    "tessel-pool.js",
    "examples.json",
    "exercises.json",
    "favicon.svg",
];

/// Prints the size of each file in dist/ (and gzipped, where gzip exists),
/// and the sum a page fetches first.
fn report_bundle(ctx: &Ctx) {
    let Ok(entries) = fs::read_dir(ctx.dist()) else {
        return;
    };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    let (mut raw_total, mut gz_total) = (0u64, 0u64);
    let (mut first_raw, mut first_gz) = (0u64, 0u64);
    for file in files.iter().filter(|f| f.is_file()) {
        let raw = fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        let gz = Command::new("gzip")
            .args(["-9", "-c"])
            .arg(file)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| o.stdout.len() as u64);
        raw_total += raw;
        gz_total += gz.unwrap_or(0);
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        if !LATER_FILES.contains(&name.as_ref()) {
            first_raw += raw;
            first_gz += gz.unwrap_or(0);
        }
        match gz {
            Some(gz) => println!("  {name:<48} {raw:>9} B  {gz:>8} B gzipped"),
            None => println!("  {name:<48} {raw:>9} B"),
        }
    }
    println!(
        "  {:<48} {raw_total:>9} B  {gz_total:>8} B gzipped",
        "total"
    );
    println!(
        "  {:<48} {first_raw:>9} B  {first_gz:>8} B gzipped",
        "first load (all but LATER_FILES)"
    );
}

// ---------------------------------------------------------------------------
// test

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Step {
    Fmt,
    Clippy,
    Test,
    Wasm32,
    Serve,
    Web,
    E2e,
    Differential,
}

impl Step {
    const ALL: [Step; 8] = [
        Step::Fmt,
        Step::Clippy,
        Step::Test,
        Step::Wasm32,
        Step::Serve,
        Step::Web,
        Step::E2e,
        Step::Differential,
    ];

    fn name(self) -> &'static str {
        match self {
            Step::Fmt => "fmt",
            Step::Clippy => "clippy",
            Step::Test => "test",
            Step::Wasm32 => "wasm32",
            Step::Serve => "serve",
            Step::Web => "web",
            Step::E2e => "e2e",
            Step::Differential => "differential",
        }
    }

    fn parse(name: &str) -> Result<Step> {
        Step::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                let names: Vec<_> = Step::ALL.iter().map(|s| s.name()).collect();
                Failure::new(format!(
                    "unknown step `{name}`; steps are: {}",
                    names.join(", ")
                ))
            })
    }

    fn needs(self) -> &'static [Part] {
        match self {
            Step::Fmt => &[Part::RustComponents],
            Step::Clippy => &[Part::RustComponents, Part::Wasm32Target],
            Step::Test => &[],
            Step::Wasm32 => &[Part::Wasm32Target],
            Step::Serve => &[
                Part::Wasm32Target,
                Part::Trunk,
                Part::WasmBindgen,
                Part::Binaryen,
                Part::CrateSources,
                Part::E2eNpm,
                Part::Chromium,
            ],
            Step::Web => &Part::WEB,
            Step::E2e => &[Part::E2eNpm, Part::Chromium],
            Step::Differential => &[Part::TvmVenv],
        }
    }
}

enum Outcome {
    Passed(Duration),
    Failed(Duration, Failure),
    Skipped(String),
    NotRun,
}

fn parse_steps(list: &str) -> Result<Vec<Step>> {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(Step::parse)
        .collect()
}

fn test(ctx: &Ctx, rest: &[String]) -> Result<()> {
    let mut only: Vec<Step> = Vec::new();
    let mut skip: Vec<Step> = Vec::new();
    let mut args = rest.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| Failure::new(format!("{flag} needs a step name")))
        };
        match arg.as_str() {
            "--skip-web" => skip.extend([Step::Serve, Step::Web, Step::E2e]),
            "--only" => only.extend(parse_steps(&value("--only")?)?),
            "--skip" => skip.extend(parse_steps(&value("--skip")?)?),
            other => {
                if let Some(list) = other.strip_prefix("--only=") {
                    only.extend(parse_steps(list)?);
                } else if let Some(list) = other.strip_prefix("--skip=") {
                    skip.extend(parse_steps(list)?);
                } else {
                    return fail(format!("unexpected argument `{other}`"));
                }
            }
        }
    }

    let has_differential = ctx.root.join(DIFFERENTIAL_SCRIPT).is_file();
    let mut plan: Vec<(Step, Option<String>)> = Vec::new();
    for step in Step::ALL {
        let skipped = if !only.is_empty() && !only.contains(&step) {
            Some("not selected".to_string())
        } else if skip.contains(&step) {
            Some("skipped by option".to_string())
        } else if step == Step::Differential && !has_differential {
            Some(format!("{DIFFERENTIAL_SCRIPT} not found"))
        } else {
            None
        };
        plan.push((step, skipped));
    }

    let mut parts: Vec<Part> = Vec::new();
    for (step, skipped) in &plan {
        if skipped.is_none() {
            parts.extend(step.needs());
        }
    }
    ctx.setup(&parts)?;

    let mut outcomes: Vec<(Step, Outcome)> = Vec::new();
    let mut failed = false;
    for (step, skipped) in plan {
        let outcome = if let Some(reason) = skipped {
            Outcome::Skipped(reason)
        } else if failed {
            Outcome::NotRun
        } else {
            println!("\nxtask: ==== {} ====", step.name());
            let started = Instant::now();
            match run_step(ctx, step) {
                Ok(()) => Outcome::Passed(started.elapsed()),
                Err(e) => {
                    failed = true;
                    eprintln!("xtask: step {} failed: {}", step.name(), e.message);
                    Outcome::Failed(started.elapsed(), e)
                }
            }
        };
        outcomes.push((step, outcome));
    }

    println!("\nxtask: summary");
    let (mut passed, mut failures) = (0, 0);
    let mut exit_code = 0;
    for (step, outcome) in &outcomes {
        let line = match outcome {
            Outcome::Passed(d) => {
                passed += 1;
                format!("passed   {:>7}", secs(*d))
            }
            Outcome::Failed(d, e) => {
                failures += 1;
                if exit_code == 0 {
                    exit_code = e.code.max(1);
                }
                format!("FAILED   {:>7}  {}", secs(*d), e.message)
            }
            Outcome::Skipped(reason) => format!("skipped           ({reason})"),
            Outcome::NotRun => "not run           (an earlier step failed)".to_string(),
        };
        println!("  {:<13} {line}", step.name());
    }
    println!("xtask: {passed} passed, {failures} failed");
    if exit_code == 0 {
        Ok(())
    } else {
        Err(Failure {
            message: String::new(),
            code: exit_code,
        })
    }
}

fn run_step(ctx: &Ctx, step: Step) -> Result<()> {
    match step {
        Step::Fmt => ctx.run(ctx.cmd("cargo").args(["fmt", "--all", "--check"])),
        Step::Clippy => {
            // Default members natively, then the browser-only web-ui for wasm32
            // (--no-deps: its path dependencies were linted by the first pass).
            ctx.run(
                ctx.cmd("cargo")
                    .args(["clippy", "--all-targets", "--", "-D", "warnings"]),
            )?;
            ctx.run(ctx.cmd("cargo").args([
                "clippy",
                "-p",
                "web-ui",
                "--no-deps",
                "--target",
                "wasm32-unknown-unknown",
                "--",
                "-D",
                "warnings",
            ]))
        }
        // Default members, then web-ui's engine tests (its library compiles
        // natively; the app itself is built for wasm32 by trunk).
        Step::Test => {
            ctx.run(ctx.cmd("cargo").arg("test"))?;
            ctx.run(ctx.cmd("cargo").args(["test", "-p", "web-ui", "--lib"]))?;
            // The interpreter as the playground's first-load worker builds
            // it: without the tuner.
            ctx.run(ctx.cmd("cargo").args([
                "test",
                "-p",
                "tessel-script",
                "--no-default-features",
                "--lib",
                "meta_schedule_names",
            ]))?;
            // The schedules as that worker builds them: without the rarely
            // used primitives (the schedule test binary's `primitives_lean`).
            ctx.run(ctx.cmd("cargo").args([
                "test",
                "-p",
                "compiler-core",
                "--features",
                "lean",
                "--test",
                "schedule",
                "primitives_lean",
            ]))
        }
        Step::Wasm32 => {
            let mut cmd = ctx.cmd("cargo");
            cmd.args(["build", "--target", "wasm32-unknown-unknown"]);
            for krate in WASM32_CRATES {
                cmd.args(["-p", krate]);
            }
            ctx.run(&mut cmd)
        }
        Step::Serve => serve_smoke(ctx),
        Step::Web => trunk_build(ctx),
        Step::E2e => {
            if !ctx.dist().join("index.html").is_file() {
                return fail("dist/index.html is missing: run `cargo xtask build-web` first");
            }
            ctx.run(ctx.cmd("node").arg("e2e/run.mjs").arg(ctx.dist()))
        }
        Step::Differential => {
            let python = ctx.tvm_python()?;
            ctx.run(
                ctx.cmd("cargo")
                    .args(["build", "--release", "-p", "tessel-cli"]),
            )?;
            let tessel = ctx.target_dir()?.join("release").join("tessel");
            ctx.run(
                ctx.cmd(&python.to_string_lossy())
                    .arg(DIFFERENTIAL_SCRIPT)
                    .arg("--tessel")
                    .arg(tessel),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_locked_versions() {
        let lock = "[[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\n\n\
                    [[package]]\nname = \"wasm-bindgen-shared\"\nversion = \"0.2.131\"\n";
        assert_eq!(
            locked_version(lock, "wasm-bindgen").as_deref(),
            Some("0.2.130")
        );
        assert_eq!(locked_version(lock, "leptos"), None);
    }

    #[test]
    fn reads_json_string_fields() {
        let json = r#"{"packages":[],"target_directory":"/a \"b\"\\c","version":1}"#;
        assert_eq!(
            json_string_field(json, "target_directory").as_deref(),
            Some("/a \"b\"\\c")
        );
        assert_eq!(json_string_field(json, "missing"), None);
    }

    #[test]
    fn parses_step_lists() {
        let steps = parse_steps("fmt,serve,e2e").unwrap();
        assert_eq!(steps, vec![Step::Fmt, Step::Serve, Step::E2e]);
        assert!(parse_steps("nope").is_err());
    }
}
