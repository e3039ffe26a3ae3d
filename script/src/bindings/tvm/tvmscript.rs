//! TVMScript in scripts: `@T.prim_func`, `@I.ir_module` and `@R.function`
//! definitions built into IR with the script's aliases and constants.

use super::*;

pub fn is_prim_func_decorator(v: &Value) -> bool {
    matches!(v, Value::Builtin(b) if &*b.name == PRIM_FUNC || &*b.name == RELAX_FUNCTION)
}

pub fn is_ir_module_decorator(v: &Value) -> bool {
    matches!(v, Value::Builtin(b) if &*b.name == IR_MODULE)
}

/// Which script names refer to TVM's script namespaces.
pub(super) fn aliases(it: &Interp) -> ScriptAliases {
    let mut a = ScriptAliases::default();
    let mut look = |name: &str, v: &Value| {
        if let Some(c) = py_const(v, 0) {
            a.consts.push((name.to_string(), c));
        }
        if let Value::Module(m) = v {
            match m.name.as_str() {
                "tvm.script.tir" => a.tir.push(name.to_string()),
                "tvm.script.tirx" => {
                    a.tir.push(name.to_string());
                    a.tirx = true;
                }
                "tvm.script.ir" => a.ir.push(name.to_string()),
                "tvm.script.relax" => a.relax.push(name.to_string()),
                _ => {}
            }
        }
    };
    for (k, v) in &it.globals {
        look(k, v);
    }
    if let Some(env) = &it.frame.env {
        for (k, v) in env.code.locals.iter().zip(env.values.borrow().iter()) {
            if let Some(v) = v {
                look(k, v);
            }
        }
    }
    a
}

/// A script value TVMScript can use as a constant.
fn py_const(v: &Value, depth: u32) -> Option<PyConst> {
    Some(match v {
        Value::Bool(b) => PyConst::Bool(*b),
        Value::Int(i) => PyConst::Int(*i),
        Value::Float(f) => PyConst::Float(*f),
        Value::Str(s) => PyConst::Str(s.to_string()),
        Value::NpScalar(s) if !s.dtype.is_float() && !s.dtype.is_bool() => {
            PyConst::Int(s.num.as_i64())
        }
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Te(super::super::te::TeObj::Expr(e))) => match e.kind() {
                tessel_ir::ExprKind::Int(v) => PyConst::IntImm(*v, e.dtype()),
                tessel_ir::ExprKind::Float(v) => PyConst::FloatImm(*v, e.dtype()),
                _ => return None,
            },
            _ => return None,
        },
        Value::Tuple(items) if depth < 4 && items.len() <= 16 => PyConst::Tuple(
            items
                .iter()
                .map(|x| py_const(x, depth + 1))
                .collect::<Option<_>>()?,
        ),
        Value::List(l) if depth < 4 && l.borrow().len() <= 16 => PyConst::Tuple(
            l.borrow()
                .iter()
                .map(|x| py_const(x, depth + 1))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

fn diagnostic_error(it: &Interp, diags: &[tessel_syntax::diag::Diagnostic]) -> Box<PyErr> {
    let src = &it.frame.source;
    let text: Vec<String> = diags
        .iter()
        .map(|d| tessel_syntax::diag::render(d, &src.text, &src.name))
        .collect();
    // Like TVM's, the message is the rendered diagnostics.
    PyErr::new(
        ExcKind::DiagnosticError,
        text.join("\n").trim_end().to_string(),
    )
}

/// Builds the IRModule or PrimFunc a decorated class or def defines.
pub fn build_tvmscript(it: &mut Interp, stmt: &ast::Stmt) -> Res<Value> {
    let ns = aliases(it);
    let parsed = build_item(stmt, &ns).map_err(|d| diagnostic_error(it, &[d]))?;
    let dialect = Dialect::from(parsed.dialect);
    let module = parsed.to_module();
    let errors: Vec<_> =
        compiler_core::analysis::verify::verify_module_as(&module, parsed.api_generation())
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
    if !errors.is_empty() {
        return Err(diagnostic_error(it, &errors));
    }
    it.charge_steps(1000)?;
    Ok(match parsed.items.into_iter().next() {
        Some(Item::PrimFunc { func, .. }) => host(Obj::PrimFunc { func, dialect }),
        Some(Item::GraphFunc { func, .. }) => {
            Value::Host(Rc::new(Obj::Relax(super::super::relax::RObj::Func(func))))
        }
        _ => host(Obj::IRModule {
            module: RefCell::new(module),
            dialect,
        }),
    })
}

pub(super) fn prim_func_decorator(_it: &mut Interp, a: Args) -> Res<Value> {
    if a.pos.is_empty() {
        // `@T.prim_func(private=True)`: a configured decorator.
        return Ok(builtin(PRIM_FUNC, prim_func_decorator));
    }
    Err(PyErr::type_error(
        "T.prim_func must be used as a decorator of a `def` (Tessel builds the function from its source)",
    ))
}

pub(crate) fn relax_function_decorator(_it: &mut Interp, a: Args) -> Res<Value> {
    if a.pos.is_empty() {
        // `@R.function(pure=False)`: a configured decorator.
        return Ok(builtin(RELAX_FUNCTION, relax_function_decorator));
    }
    Err(PyErr::type_error(
        "R.function must be used as a decorator of a `def` (Tessel builds the function from its source)",
    ))
}

pub(super) fn ir_module_decorator(_it: &mut Interp, a: Args) -> Res<Value> {
    if a.pos.is_empty() {
        // `@I.ir_module(s_tir=True)`: a configured decorator.
        return Ok(builtin(IR_MODULE, ir_module_decorator));
    }
    Err(PyErr::type_error(
        "ir_module must be used as a class decorator (Tessel builds the module from its source)",
    ))
}
