//! The `tessel` command's tests, one binary: its subcommands end to end
//! (`commands`), `tessel exercise` over every bundled exercise
//! (`exercises`), and `tessel run` on the real CPU and GPU backends
//! (`backends`); tuning (`tune`: the book's meta_schedule cells, `tessel tune`).

mod backends;
mod commands;
mod exercises;
mod tune;
