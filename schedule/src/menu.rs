//! What the playground's primitive menu needs from a primitive's
//! declaration: on what it is offered (a clicked loop or block), when, with
//! which argument field, and the schedule call a click appends.
//!
//! The playground only renders these entries (see `web-ui`'s `LoopPrims`
//! and `ir_view::loop_primitive`); the text of each call lives with the
//! primitive it calls.

/// What a menu entry is offered on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuTarget {
    Loop,
    Block,
}

/// The argument field next to a menu button.
#[derive(Clone, Copy, Debug)]
pub enum MenuArg {
    None,
    /// Free text: its accessible label and its initial value for a site.
    Text {
        label: &'static str,
        default: fn(&MenuSite) -> String,
    },
    /// A choice among the function's other blocks.
    OtherBlock,
    /// A choice among fixed values.
    Choice(&'static [&'static str]),
}

/// When an entry is offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuWhen {
    Always,
    /// The loop has a loop directly inside it in its block's nest.
    HasNextLoop,
    /// The function has blocks besides the site's.
    HasOtherBlocks,
    /// The loop's block is a reduction.
    Reduction,
}

/// One primitive's menu entry.
#[derive(Clone, Copy, Debug)]
pub struct MenuEntry {
    pub target: MenuTarget,
    /// A short description (the button's tooltip and the row's help).
    pub help: &'static str,
    pub arg: MenuArg,
    pub when: MenuWhen,
    /// The call to append for a site and the field's text (`None` when
    /// the site does not allow it).
    pub call: fn(&MenuSite, &str) -> Option<String>,
}

impl MenuEntry {
    pub fn offered(&self, site: &MenuSite) -> bool {
        match self.when {
            MenuWhen::Always => true,
            MenuWhen::HasNextLoop => site.next_loop().is_some(),
            MenuWhen::HasOtherBlocks => !site.other_blocks().is_empty(),
            MenuWhen::Reduction => site.reduction,
        }
    }
}

/// Where the user clicked: a block, or a loop of a block's nest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MenuSite {
    pub func: String,
    /// Whether the module has several functions (`get_block` then names one).
    pub multi_func: bool,
    /// The clicked block, or the block whose `get_loops` reaches the loop.
    pub block: String,
    /// All blocks of the function.
    pub all_blocks: Vec<String>,
    /// The printed names of the block's loops, outer first (loop sites).
    pub loops: Vec<String>,
    /// The clicked loop's position in `loops`.
    pub loop_pos: Option<usize>,
    pub extent: Option<i64>,
    /// Whether the block is a reduction.
    pub reduction: bool,
}

impl MenuSite {
    pub fn loop_name(&self) -> Option<&str> {
        self.loops.get(self.loop_pos?).map(String::as_str)
    }
    pub fn next_loop(&self) -> Option<&str> {
        self.loops.get(self.loop_pos? + 1).map(String::as_str)
    }
    pub fn other_blocks(&self) -> Vec<String> {
        self.all_blocks
            .iter()
            .filter(|b| **b != self.block)
            .cloned()
            .collect()
    }
    /// `sch.get_block("Y")` for a block of the site's function.
    pub fn block_ref(&self, name: &str) -> String {
        get_block_call(name, &self.func, self.multi_func)
    }
}

/// `sch.get_block("Y")`, with `func_name` when the module has several functions.
pub fn get_block_call(name: &str, func: &str, multi_func: bool) -> String {
    if multi_func {
        format!("sch.get_block(\"{name}\", func_name=\"{func}\")")
    } else {
        format!("sch.get_block(\"{name}\")")
    }
}

/// `sch.<method>(<loop>)`, for menu entries that take only the loop.
pub fn loop_only_call(method: &str, site: &MenuSite) -> Option<String> {
    Some(format!("sch.{method}({})", site.loop_name()?))
}

/// `sch.<method>(<block>)`, for menu entries that take only the block.
pub fn block_only_call(method: &str, site: &MenuSite) -> String {
    format!("sch.{method}({})", site.block_ref(&site.block))
}
