//! Buffers: multi-dimensional views of memory, with identity.

use std::fmt;
use std::rc::Rc;

use super::dtype::DataType;
use super::expr::{fresh_id, Expr, Range, Var};
use tessel_syntax::diag::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u64);

/// A buffer. Compared and hashed by identity; fields are read through `Deref`.
#[derive(Clone)]
pub struct Buffer(Rc<BufferNode>);

#[derive(Debug, Clone)]
pub struct BufferNode {
    pub id: BufferId,
    pub name: String,
    /// The pointer variable holding the buffer's address (a `handle`).
    pub data: Var,
    pub dtype: DataType,
    /// Constants or symbolic size variables.
    pub shape: Vec<Expr>,
    /// Empty means compact row-major.
    pub strides: Vec<Expr>,
    pub elem_offset: Expr,
    /// `global`, `shared`, `local`, or a tagged scope such as `global.A_reg`.
    pub scope: String,
    pub align: i64,
    pub offset_factor: i64,
    pub span: Span,
}

/// The type of a buffer's offset when none is given: its first
/// dimension's, or `int64` for a zero-dimensional buffer (as TVM).
pub fn default_index_dtype(shape: &[Expr]) -> DataType {
    shape.first().map_or(DataType::i64(), |e| e.dtype())
}

impl Buffer {
    /// A compact row-major buffer in `global` scope.
    pub fn new(name: impl Into<String>, dtype: DataType, shape: Vec<Expr>) -> Buffer {
        let name = name.into();
        let elem_offset = Expr::int(0, default_index_dtype(&shape));
        Buffer::from_node(BufferNode {
            id: BufferId(0),
            data: Var::new(name.clone(), DataType::handle()),
            name,
            dtype,
            shape,
            strides: Vec::new(),
            elem_offset,
            scope: "global".to_string(),
            align: 64,
            offset_factor: 1,
            span: Span::default(),
        })
    }

    /// Wraps a node, giving it a fresh identity (whatever `node.id` held).
    pub fn from_node(mut node: BufferNode) -> Buffer {
        node.id = BufferId(fresh_id());
        Buffer(Rc::new(node))
    }

    /// A copy with a fresh identity and its fields changed by `edit`.
    pub fn derive(&self, edit: impl FnOnce(&mut BufferNode)) -> Buffer {
        let mut node = (*self.0).clone();
        node.data = Var::new(node.name.clone(), DataType::handle());
        edit(&mut node);
        Buffer::from_node(node)
    }

    pub fn id(&self) -> BufferId {
        self.0.id
    }
    pub fn ndim(&self) -> usize {
        self.0.shape.len()
    }
    /// The whole buffer as a region.
    pub fn full_region(&self) -> Vec<Range> {
        self.0
            .shape
            .iter()
            .map(|e| Range::from_extent(e.clone()))
            .collect()
    }
    /// The constant shape, when every dimension is a constant.
    pub fn const_shape(&self) -> Option<Vec<i64>> {
        self.0.shape.iter().map(|e| e.as_int()).collect()
    }
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Buffer {}
impl std::hash::Hash for Buffer {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state)
    }
}
impl std::ops::Deref for Buffer {
    type Target = BufferNode;
    fn deref(&self) -> &BufferNode {
        &self.0
    }
}
impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Buffer({}#{}: {} {:?})",
            self.0.name, self.0.id.0, self.0.dtype, self.0.shape
        )
    }
}

/// A rectangular region of a buffer: one range per dimension.
#[derive(Clone, Debug)]
pub struct BufferRegion {
    pub buffer: Buffer,
    pub region: Vec<Range>,
}

/// `T.match_buffer(source_region, shape, …)` inside a block: `buffer` views
/// the given region of another buffer.
#[derive(Clone, Debug)]
pub struct MatchBufferRegion {
    pub buffer: Buffer,
    pub source: BufferRegion,
}
