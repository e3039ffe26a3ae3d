//! `tessel`: the command-line face of the compiler.
//!
//! - `tessel fmt FILE` prints the canonical TVMScript form of FILE.
//! - `tessel check FILE` verifies FILE and prints spanned diagnostics.
//! - `tessel eval FILE` runs a function on seeded random inputs.
//!
//! Exit codes: 0 success, 1 the input has errors (diagnostics printed),
//! 2 usage or I/O errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use compiler_core::diag::{render, Diagnostic};
use compiler_core::tvmscript::builder::{parse_script, Item, ParsedScript};
use compiler_core::tvmscript::printer::{print_module, print_prim_func, Dialect, PrintOptions};

#[derive(Parser)]
#[command(
    name = "tessel",
    version,
    about = "Tessel: a tensor-program compiler playground"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum DialectArg {
    /// `T.block` with `from tvm.script import tir` (the course book).
    Block,
    /// `T.sblock` with `from tvm.script import tir`.
    Sblock,
    /// TVM 0.27: `tirx`, `T.sblock`, `@T.prim_func(s_tir=True)`.
    Tirx,
}

#[derive(Subcommand)]
enum Command {
    /// Print the canonical form of a TVMScript file.
    Fmt {
        file: PathBuf,
        /// Print in this dialect instead of the input's own.
        #[arg(long, value_enum)]
        dialect: Option<DialectArg>,
    },
    /// Verify a TVMScript file; exit 1 with diagnostics if it has errors.
    Check { file: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Fmt { file, dialect } => with_script(&file, |parsed, _src| {
            let dialect = match dialect {
                Some(DialectArg::Block) => Dialect::Block,
                Some(DialectArg::Sblock) => Dialect::SBlock,
                Some(DialectArg::Tirx) => Dialect::Tirx,
                None => Dialect::from_source(parsed.dialect),
            };
            print!("{}", format_script(parsed, dialect));
            ExitCode::SUCCESS
        }),
        Command::Check { file } => with_script(&file, |parsed, src| {
            let diags = compiler_core::analysis::verify::verify_module(&parsed.to_module());
            report(&diags, src, &file);
            if diags.iter().any(Diagnostic::is_error) {
                ExitCode::from(1)
            } else {
                println!("{}: ok", file.display());
                ExitCode::SUCCESS
            }
        }),
    }
}

/// Every item of the script in canonical form, separated by blank lines.
fn format_script(parsed: &ParsedScript, dialect: Dialect) -> String {
    let opts = PrintOptions::new(dialect);
    let mut out = String::new();
    for (i, item) in parsed.items.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match item {
            Item::Module { module, .. } => out.push_str(&print_module(module, &opts)),
            Item::PrimFunc { name, func } => out.push_str(&print_prim_func(func, name, &opts)),
        }
    }
    out
}

/// Reads and parses `file`, then runs `f`; parse errors are reported with exit code 1.
fn with_script(file: &Path, f: impl FnOnce(&ParsedScript, &str) -> ExitCode) -> ExitCode {
    let src = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tessel: cannot read {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    match parse_script(&src) {
        Ok(parsed) => f(&parsed, &src),
        Err(d) => {
            report(&[d], &src, file);
            ExitCode::from(1)
        }
    }
}

fn report(diags: &[Diagnostic], src: &str, file: &Path) {
    for d in diags {
        eprint!("{}", render(d, src, &file.display().to_string()));
    }
}
