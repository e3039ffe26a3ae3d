//! Schedule errors: which primitive, which rule, and where in the IR.
//!
//! Every refusal names its rule family as a [`ScheduleErrorKind`], so hosts
//! (the script interpreter's exception types, the playground's first-load
//! worker) decide by kind, never by reading the message.

use std::fmt;

use super::tree::StmtPath;

/// The family of rules a primitive refused for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleErrorKind {
    /// A named thing does not exist: a function, a block or buffer by name,
    /// an annotation key, a tensor intrinsic, a schedule primitive, or a
    /// handle that was never part of this schedule.
    NotFound,
    /// A handle refers to a block or loop that an earlier primitive removed
    /// (inlined, split, fused…). Python raises `ValueError` for it.
    StaleHandle(HandleKind),
    /// The module has several functions and none was chosen with
    /// `func_name=` or `work_on`. Python raises `ValueError` for it.
    NoFunctionChosen,
    /// The call does not fit the primitive's signature: a missing, extra or
    /// unknown argument, or one of the wrong type (Python's `TypeError`).
    ArgumentType,
    /// An argument of the right type whose value the primitive cannot use:
    /// a non-positive factor, an index out of range, a malformed index map,
    /// an unknown storage scope or thread axis.
    InvalidArgument,
    /// The loops are not shaped as the primitive needs: not a single child,
    /// not perfectly nested, not an ancestor, not starting at 0, annotated
    /// or bound, or extents and factors that do not fit.
    LoopStructure,
    /// The block is not shaped as the primitive needs: the root block, not a
    /// leaf, not complete, an output block, a body of the wrong pattern.
    BlockStructure,
    /// Moving or rewriting would break a dependency or an order: producers
    /// and consumers, reads before writes, nests that depend on each other.
    Dependency,
    /// Buffer regions do not cover what they must, or are not of the needed
    /// form (a single point, compact, one region per block).
    RegionCoverage,
    /// A block's iterator bindings are not affine in the loops (or a map is
    /// not a bijective affine one).
    NonAffineBinding,
    /// The block is not a reduction the primitive can work with: no
    /// `T.init()`, or no commutative reducer matches it.
    NotReduction,
    /// Valid in TVM, but a case Tessel does not implement (or refuses where
    /// TVM 0.27 would compute something wrong).
    Unsupported,
    /// The primitive exists, but this build of Tessel leaves it out (feature
    /// `lean`).
    LeftOut,
    /// A broken invariant of the schedule itself (a stale path): a bug.
    Internal,
}

/// What a stale handle referred to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandleKind {
    Block,
    Loop,
}

/// A primitive refused to transform the program. The IR is unchanged.
#[derive(Clone, Debug)]
pub struct ScheduleError {
    /// The rule family the primitive refused for.
    pub kind: ScheduleErrorKind,
    /// The primitive's name as the user called it (`split`, `compute_at`…).
    pub primitive: String,
    /// One or more sentences naming the rule that failed.
    pub message: String,
    /// The function body with the offending loop or block marked, when known.
    pub marked_ir: Option<String>,
    /// Where the offending statement is (for the UI to highlight).
    pub location: Option<StmtPath>,
}

/// [`ScheduleError::left_out`]'s message.
const LEFT_OUT: &str = "this schedule primitive is not part of this build of Tessel (it is left out of the playground's first-load worker)";

/// One constructor per kind, so that a refusal reads as its rule family.
macro_rules! kind_constructors {
    ($($(#[$doc:meta])* $name:ident => $kind:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(primitive: &str, message: impl Into<String>) -> ScheduleError {
                ScheduleError::new(ScheduleErrorKind::$kind, primitive, message)
            }
        )*
    };
}

impl ScheduleError {
    pub fn new(
        kind: ScheduleErrorKind,
        primitive: &str,
        message: impl Into<String>,
    ) -> ScheduleError {
        ScheduleError {
            kind,
            primitive: primitive.to_string(),
            message: message.into(),
            marked_ir: None,
            location: None,
        }
    }

    kind_constructors! {
        /// A [`ScheduleErrorKind::NotFound`] error.
        not_found => NotFound;
        /// A [`ScheduleErrorKind::NoFunctionChosen`] error.
        no_function_chosen => NoFunctionChosen;
        /// A [`ScheduleErrorKind::ArgumentType`] error.
        argument_type => ArgumentType;
        /// A [`ScheduleErrorKind::InvalidArgument`] error.
        invalid_argument => InvalidArgument;
        /// A [`ScheduleErrorKind::LoopStructure`] error.
        loop_structure => LoopStructure;
        /// A [`ScheduleErrorKind::BlockStructure`] error.
        block_structure => BlockStructure;
        /// A [`ScheduleErrorKind::Dependency`] error.
        dependency => Dependency;
        /// A [`ScheduleErrorKind::RegionCoverage`] error.
        region_coverage => RegionCoverage;
        /// A [`ScheduleErrorKind::NonAffineBinding`] error.
        non_affine_binding => NonAffineBinding;
        /// A [`ScheduleErrorKind::NotReduction`] error.
        not_reduction => NotReduction;
        /// A [`ScheduleErrorKind::Unsupported`] error.
        unsupported => Unsupported;
        /// A [`ScheduleErrorKind::Internal`] error.
        internal => Internal;
    }

    /// A [`ScheduleErrorKind::StaleHandle`] error for a block or loop handle.
    pub fn stale_handle(
        handle: HandleKind,
        primitive: &str,
        message: impl Into<String>,
    ) -> ScheduleError {
        ScheduleError::new(ScheduleErrorKind::StaleHandle(handle), primitive, message)
    }

    /// A primitive this build leaves out (feature `lean`).
    pub fn left_out(primitive: &str) -> ScheduleError {
        ScheduleError::new(ScheduleErrorKind::LeftOut, primitive, LEFT_OUT)
    }

    /// Whether this is [`ScheduleError::left_out`]: the primitive exists,
    /// in a build with all of them.
    pub fn is_left_out(&self) -> bool {
        self.kind == ScheduleErrorKind::LeftOut
    }

    /// The same refusal, reported as made by `primitive` (a primitive that
    /// calls another names itself).
    pub fn for_primitive(mut self, primitive: &str) -> ScheduleError {
        self.primitive = primitive.to_string();
        self
    }

    pub fn at(mut self, location: StmtPath) -> ScheduleError {
        self.location = Some(location);
        self
    }
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "ScheduleError: An error occurred in the schedule primitive '{}'.",
            self.primitive
        )?;
        if let Some(ir) = &self.marked_ir {
            writeln!(f, "\nThe IR with diagnostic is:\n{ir}")?;
        }
        write!(f, "Error message: {}", self.message)
    }
}

impl std::error::Error for ScheduleError {}

pub type Result<T> = std::result::Result<T, ScheduleError>;
