//! TE objects as script values: class names, printing, attributes,
//! methods, indexing, calls and operators.

use super::*;

// Objects: class names, printing, attributes, operators

pub fn class_name(o: &TeObj) -> &'static str {
    match o {
        TeObj::Tensor(_) => "tvm.te.tensor.Tensor",
        TeObj::Slice(..) => "tvm.te.tensor.TensorSlice",
        TeObj::IterVar(_) => "tvm.tirx.expr.IterVar",
        TeObj::Reduce(_) => "tvm.tirx.expr.Reduce",
        TeObj::Op(op) if op.is_placeholder() => "tvm.te.tensor.PlaceholderOp",
        TeObj::Op(_) => "tvm.te.tensor.ComputeOp",
        TeObj::Schedule(_) => "tvm.te.schedule.Schedule",
        TeObj::Stage(..) => "tvm.te.schedule.Stage",
        TeObj::ThreadAxis(_) => "tvm.tirx.expr.IterVar",
        TeObj::Expr(e) => expr_class(e),
    }
}

fn expr_class(e: &Expr) -> &'static str {
    use tessel_ir::{BinOp as B, CmpOp as C, ExprKind as K};
    match e.kind() {
        K::Var(_) => "tvm.ir.expr.Var",
        K::Int(_) => "tvm.ir.prim.expr.IntImm",
        K::Float(_) => "tvm.ir.prim.expr.FloatImm",
        K::Str(_) => "tvm.ir.prim.expr.StringImm",
        K::Binary(op, ..) => match op {
            B::Add => "tvm.ir.prim.expr.Add",
            B::Sub => "tvm.ir.prim.expr.Sub",
            B::Mul => "tvm.ir.prim.expr.Mul",
            B::Div => "tvm.ir.prim.expr.Div",
            B::Mod => "tvm.ir.prim.expr.Mod",
            B::FloorDiv => "tvm.ir.prim.expr.FloorDiv",
            B::FloorMod => "tvm.ir.prim.expr.FloorMod",
            B::Min => "tvm.ir.prim.expr.Min",
            B::Max => "tvm.ir.prim.expr.Max",
        },
        K::Cmp(op, ..) => match op {
            C::Eq => "tvm.ir.prim.expr.EQ",
            C::Ne => "tvm.ir.prim.expr.NE",
            C::Lt => "tvm.ir.prim.expr.LT",
            C::Le => "tvm.ir.prim.expr.LE",
            C::Gt => "tvm.ir.prim.expr.GT",
            C::Ge => "tvm.ir.prim.expr.GE",
        },
        K::And(..) => "tvm.ir.prim.expr.And",
        K::Or(..) => "tvm.ir.prim.expr.Or",
        K::Not(_) => "tvm.ir.prim.expr.Not",
        K::Select { .. } => "tvm.ir.prim.expr.Select",
        K::Cast(_) => "tvm.ir.prim.expr.Cast",
        K::Call { .. } => "tvm.ir.prim.expr.Call",
        K::Load { .. } => "tvm.ir.prim.expr.ProducerLoad",
        K::Let { .. } => "tvm.ir.prim.expr.Let",
        K::Ramp { .. } => "tvm.ir.prim.expr.Ramp",
        K::Broadcast(_) => "tvm.ir.prim.expr.Broadcast",
    }
}

fn tuple_text(items: &[String]) -> String {
    if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    }
}

fn iter_var_text(iv: &IterVar) -> String {
    let kind = match iv.kind {
        IterKind::Reduce => "CommReduce",
        _ => "DataPar",
    };
    format!(
        "T.iter_var({}, T.Range({}, {}), \"{kind}\", \"\")",
        iv.var.name(),
        print_expr(&iv.dom.min),
        print_expr(&iv.dom.extent)
    )
}

pub fn repr(o: &TeObj) -> String {
    if let Some(text) = super::super::te_schedule::repr(o) {
        return text;
    }
    match o {
        TeObj::Tensor(t) => format!(
            "Tensor(shape={}, op.name={})",
            tuple_text(&t.shape().iter().map(print_expr).collect::<Vec<_>>()),
            t.op().name()
        ),
        TeObj::Slice(t, ix) => format!(
            "TensorSlice({}, [{}])",
            t.name(),
            ix.iter().map(print_expr).collect::<Vec<_>>().join(", ")
        ),
        TeObj::Expr(e) => print_expr(e),
        TeObj::IterVar(iv) => iter_var_text(iv),
        TeObj::Reduce(r) => format!(
            "T.reduce({}, axis=[{}])",
            print_expr(&r.source[r.value_index]),
            r.axis
                .iter()
                .map(iter_var_text)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TeObj::Op(op) => {
            if op.is_placeholder() {
                format!("te.PlaceholderOp(name=\"{}\")", op.name())
            } else {
                format!(
                    "te.ComputeOp(name=\"{}\", tag=\"{}\", axis={}, reduce_axis={})",
                    op.name(),
                    op.tag(),
                    tuple_text(&op.axis().iter().map(iter_var_text).collect::<Vec<_>>()),
                    tuple_text(
                        &op.reduce_axis()
                            .iter()
                            .map(iter_var_text)
                            .collect::<Vec<_>>()
                    )
                )
            }
        }
        // Printed by `te_schedule::repr` above.
        TeObj::Schedule(_) | TeObj::Stage(..) | TeObj::ThreadAxis(_) => String::new(),
    }
}

fn no_attr(o: &TeObj, name: &str) -> Box<PyErr> {
    let cls = class_name(o);
    PyErr::attribute_error(format!(
        "'{}' object has no attribute '{name}'",
        cls.rsplit('.').next().unwrap_or(cls)
    ))
}

fn dtype_value(d: DataType) -> Value {
    Value::str(d.to_string())
}

pub fn get_attr(_it: &mut Interp, o: &TeObj, v: &Value, name: &str) -> Res<Value> {
    if let Some(r) = super::super::te_schedule::get_attr(o, v, name) {
        return r;
    }
    let bound = || Value::BoundMethod(Rc::new((v.clone(), name.into())));
    match o {
        TeObj::Tensor(t) => Ok(match name {
            "shape" => Value::tuple(t.shape().iter().cloned().map(expr_value).collect()),
            "dtype" => dtype_value(t.dtype()),
            "ndim" => Value::Int(t.ndim() as i64),
            "name" => Value::str(t.name()),
            "op" => te_value(TeObj::Op(t.op().clone())),
            "value_index" => Value::Int(t.value_index() as i64),
            "astype" => bound(),
            // A function parameter's type (see `PrimFunc.params`).
            "ty" => v.clone(),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::Op(op) => Ok(match name {
            "name" => Value::str(op.name()),
            "tag" => Value::str(op.tag()),
            "axis" => Value::tuple(
                op.axis()
                    .iter()
                    .cloned()
                    .map(|iv| te_value(TeObj::IterVar(iv)))
                    .collect(),
            ),
            "reduce_axis" => Value::tuple(
                op.reduce_axis()
                    .iter()
                    .cloned()
                    .map(|iv| te_value(TeObj::IterVar(iv)))
                    .collect(),
            ),
            "input_tensors" => Value::tuple(
                op.input_tensors()
                    .iter()
                    .cloned()
                    .map(tensor_value)
                    .collect(),
            ),
            "num_outputs" => Value::Int(op.num_outputs() as i64),
            "output" => bound(),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::IterVar(iv) => Ok(match name {
            "var" => expr_value(iv.var.to_expr()),
            "dom" => Value::tuple(vec![
                expr_value(iv.dom.min.clone()),
                expr_value(iv.dom.extent.clone()),
            ]),
            "iter_type" => Value::Int(if iv.kind == IterKind::Reduce { 2 } else { 0 }),
            "dtype" => dtype_value(iv.var.dtype()),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::Expr(e) => Ok(match name {
            "dtype" => dtype_value(e.dtype()),
            // Its type, of which only `.dtype` is read.
            "ty" => v.clone(),
            "name" if e.as_var().is_some() => {
                Value::str(e.as_var().map(|v| v.name().to_string()).unwrap_or_default())
            }
            "value" => match e.kind() {
                tessel_ir::ExprKind::Int(i) => Value::Int(*i),
                tessel_ir::ExprKind::Float(f) => Value::Float(*f),
                _ => return Err(no_attr(o, name)),
            },
            "astype" => bound(),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::Reduce(r) => Ok(match name {
            "dtype" => dtype_value(r.dtype()),
            "value_index" => Value::Int(r.value_index as i64),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::Slice(..) | TeObj::Schedule(_) | TeObj::Stage(..) | TeObj::ThreadAxis(_) => {
            Err(no_attr(o, name))
        }
    }
}

pub fn call_method(it: &mut Interp, o: &TeObj, name: &str, mut a: Args) -> Res<Value> {
    if matches!(o, TeObj::Schedule(_) | TeObj::Stage(..)) {
        if let Some(r) = super::super::te_schedule::call_method(it, o, name, a) {
            return r;
        }
        return Err(no_attr(o, name));
    }
    match (o, name) {
        (TeObj::Op(op), "output") => {
            let i = match a.req(0, "index", "output")? {
                Value::Int(i) => i,
                other => {
                    return Err(PyErr::type_error(format!(
                        "output index must be an int, found {}",
                        other.type_name()
                    )))
                }
            };
            let t = usize::try_from(i)
                .ok()
                .and_then(|i| op.output(i))
                .ok_or_else(|| PyErr::index_error(format!("output index {i} out of range")))?;
            Ok(tensor_value(t))
        }
        (TeObj::Expr(e), "astype") => {
            let dt = dtype_arg(&a.req(0, "dtype", "astype")?)?;
            Ok(expr_value(op::cast(dt, e).map_err(te_err)?))
        }
        (TeObj::Tensor(t), "astype") => {
            let dt = dtype_arg(&a.req(0, "dtype", "astype")?)?;
            Ok(tensor_value(topi::cast(t, dt).map_err(te_err)?))
        }
        _ => Err(no_attr(o, name)),
    }
}

/// `A[i, j]`, `A[i][j]`.
pub fn get_item(it: &mut Interp, o: &TeObj, idx: Value) -> Res<Value> {
    if let TeObj::Schedule(s) = o {
        return super::super::te_schedule::get_item(s, &idx);
    }
    let (t, mut ix) = match o {
        TeObj::Tensor(t) => (t.clone(), Vec::new()),
        TeObj::Slice(t, ix) => (t.clone(), ix.clone()),
        _ => {
            return Err(PyErr::type_error(format!(
                "'{}' object is not subscriptable",
                class_name(o).rsplit('.').next().unwrap_or("object")
            )))
        }
    };
    let items = match &idx {
        Value::Tuple(_) | Value::List(_) => it.items_of(&idx)?,
        other => vec![other.clone()],
    };
    for x in &items {
        if matches!(x, Value::Slice(_)) {
            return Err(PyErr::type_error(format!(
                "tensor {} cannot be sliced in a tensor expression; index every dimension",
                t.name()
            )));
        }
        ix.push(to_expr(x)?);
    }
    if ix.len() < t.ndim() {
        return Ok(te_value(TeObj::Slice(t, ix)));
    }
    Ok(expr_value(t.index(&ix).map_err(te_err)?))
}

/// `A(i, j)`.
pub fn call(it: &mut Interp, o: &TeObj, a: Args) -> Res<Value> {
    match o {
        TeObj::Tensor(_) => {
            let idx = Value::tuple(a.pos);
            get_item(it, o, idx)
        }
        _ => Err(PyErr::type_error(format!(
            "'{}' object is not callable",
            class_name(o).rsplit('.').next().unwrap_or("object")
        ))),
    }
}

/// Arithmetic with a TE operand: expressions build expressions; tensors
/// broadcast through topi (`A + B`, `A * 2`).
pub fn binary(op_: BinOp, l: &Value, r: &Value) -> Res<Option<Value>> {
    if !is_te(l) && !is_te(r) {
        return Ok(None);
    }
    if as_tensor(l).is_some_and(|t| t.ndim() > 0) || as_tensor(r).is_some_and(|t| t.ndim() > 0) {
        let (x, y) = (operand(l)?, operand(r)?);
        let res = match op_ {
            BinOp::Add => topi::add(x, y),
            BinOp::Sub => topi::subtract(x, y),
            BinOp::Mul => topi::multiply(x, y),
            BinOp::Div => topi::divide(x, y),
            _ => return Ok(None),
        }
        .map_err(te_err)?;
        return Ok(Some(operand_value(res)));
    }
    let (x, y) = (to_expr(l)?, to_expr(r)?);
    let res = match op_ {
        BinOp::Add => op::add(&x, &y),
        BinOp::Sub => op::sub(&x, &y),
        BinOp::Mul => op::mul(&x, &y),
        BinOp::Div => op::truediv(&x, &y),
        BinOp::FloorDiv => op::floordiv(&x, &y),
        BinOp::Mod => op::floormod(&x, &y),
        BinOp::Pow => op::power(&x, &y),
        BinOp::BitAnd if x.dtype().is_bool() && y.dtype().is_bool() => op::logical_and(&x, &y),
        BinOp::BitOr if x.dtype().is_bool() && y.dtype().is_bool() => op::logical_or(&x, &y),
        _ => return Ok(None),
    }
    .map_err(te_err)?;
    Ok(Some(expr_value(res)))
}

/// `<`, `<=`, `>`, `>=`, `==`, `!=` with an expression operand build
/// comparison expressions (as TVM's `PrimExpr` operators do).
pub fn compare(op_: CmpOp, l: &Value, r: &Value) -> Res<Option<Value>> {
    let te_expr = |v: &Value| {
        matches!(
            te_obj(v),
            Some(TeObj::Expr(_) | TeObj::IterVar(_) | TeObj::Reduce(_))
        )
    };
    if !te_expr(l) && !te_expr(r) {
        return Ok(None);
    }
    let (x, y) = (to_expr(l)?, to_expr(r)?);
    let res = match op_ {
        CmpOp::Lt => op::lt(&x, &y),
        CmpOp::LtE => op::le(&x, &y),
        CmpOp::Gt => op::gt(&x, &y),
        CmpOp::GtE => op::ge(&x, &y),
        CmpOp::Eq => op::eq(&x, &y),
        CmpOp::NotEq => op::ne(&x, &y),
        _ => return Ok(None),
    }
    .map_err(te_err)?;
    // Constant comparisons (`A.shape[1] == B.shape[0]`) fold to `T.bool(…)`,
    // whose truth value `assert` and `if` see (see [`truthy`]).
    Ok(Some(expr_value(res)))
}

const EXPR_BOOL_ERROR: &str =
    "Cannot use and / or / not operator to Expr, hint: use tvm.tirx.all / \
     tvm.tirx.any, if it is None checking, use node is not None";

/// `bool(x)` of a TE object: constants have their value; a symbolic
/// expression is TVM's error (Python's `and`/`or`/`not`/`if` cannot build
/// expressions). `None` for values that are not TE objects.
pub fn truthy(v: &Value) -> Option<Res<bool>> {
    match te_obj(v)? {
        TeObj::Expr(e) => Some(match e.kind() {
            tessel_ir::ExprKind::Int(i) => Ok(*i != 0),
            tessel_ir::ExprKind::Float(f) => Ok(*f != 0.0),
            _ => Err(PyErr::value_error(EXPR_BOOL_ERROR)),
        }),
        TeObj::IterVar(_) | TeObj::Reduce(_) => Some(Err(PyErr::value_error(EXPR_BOOL_ERROR))),
        _ => Some(Ok(true)),
    }
}

/// `-x` on an expression.
pub fn unary(op_: UnaryOp, v: &Value) -> Res<Option<Value>> {
    if !matches!(te_obj(v), Some(TeObj::Expr(_) | TeObj::IterVar(_))) {
        return Ok(None);
    }
    let x = to_expr(v)?;
    Ok(Some(match op_ {
        UnaryOp::Neg => expr_value(op::neg(&x).map_err(te_err)?),
        UnaryOp::Pos => expr_value(x),
        UnaryOp::Not => return Ok(None),
        UnaryOp::Invert if x.dtype().is_bool() => expr_value(op::logical_not(&x).map_err(te_err)?),
        UnaryOp::Invert => return Ok(None),
    }))
}

/// `int(e)` / `range(A.shape[0])` of a constant integer expression.
pub fn const_int(o: &TeObj) -> Option<i64> {
    match o {
        TeObj::Expr(e) => e.as_int(),
        _ => None,
    }
}
