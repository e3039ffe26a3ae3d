//! Test helpers: a parser for TVM's printed expression syntax and a printer
//! producing it, so tables of (input, TVM output) read as TVM prints them.
#![allow(dead_code)]

use std::collections::HashMap;

use compiler_core::arith::Analyzer;
use compiler_core::ir::{BinOp, CmpOp, DataType, Expr, ExprKind, Intrinsic, Var};

/// Variables by name, with the analyzer that knows their ranges.
pub struct Env {
    pub vars: HashMap<String, Var>,
    pub ana: Analyzer,
}

impl Env {
    pub fn new() -> Env {
        Env {
            vars: HashMap::new(),
            ana: Analyzer::new(),
        }
    }
    /// An int32 variable, bound to `[min, min + extent)` when given.
    pub fn var(&mut self, name: &str, range: Option<(i64, i64)>) -> Var {
        self.var_typed(name, DataType::i32(), range)
    }
    pub fn var_typed(&mut self, name: &str, dt: DataType, range: Option<(i64, i64)>) -> Var {
        let v = Var::new(name, dt);
        if let Some((min, ext)) = range {
            self.ana.bind_range(&v, min, ext);
        }
        self.vars.insert(name.to_string(), v.clone());
        v
    }
    /// The environment the oracle tables use.
    pub fn standard() -> Env {
        let mut env = Env::new();
        for (name, r) in [
            ("i", Some((0, 8))),
            ("j", Some((0, 16))),
            ("k", Some((0, 4))),
            ("p", Some((0, 100))),
            ("i_0", Some((0, 4))),
            ("i_1", Some((0, 8))),
            ("i_2", Some((0, 4))),
            ("j_0", Some((0, 32))),
            ("j_1", Some((0, 4))),
            ("f", Some((0, 16384))),
            ("f_0", Some((0, 512))),
            ("f_1", Some((0, 32))),
            ("n", None),
            ("m", None),
        ] {
            env.var(name, r);
        }
        env
    }
    pub fn parse(&self, text: &str) -> Expr {
        let toks = lex(text);
        let mut p = Parser {
            toks,
            pos: 0,
            env: self,
        };
        let e = p.or_expr();
        assert!(
            p.pos == p.toks.len(),
            "trailing input in {text:?}: {:?}",
            &p.toks[p.pos..]
        );
        e
    }
    pub fn simplify_str(&self, text: &str) -> String {
        print(&self.ana.simplify(&self.parse(text)))
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Ident(String),
    Str(String),
    Op(String),
}

fn lex(s: &str) -> Vec<Tok> {
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < cs.len() && cs[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Num(
                cs[st..i].iter().collect::<String>().parse().unwrap(),
            ));
        } else if c.is_alphabetic() || c == '_' {
            let st = i;
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_' || cs[i] == '.') {
                i += 1;
            }
            out.push(Tok::Ident(cs[st..i].iter().collect()));
        } else if c == '"' {
            let st = i + 1;
            i += 1;
            while cs[i] != '"' {
                i += 1;
            }
            out.push(Tok::Str(cs[st..i].iter().collect()));
            i += 1;
        } else {
            let two: String = cs[i..(i + 2).min(cs.len())].iter().collect();
            if ["//", "<=", ">=", "==", "!="].contains(&two.as_str()) {
                out.push(Tok::Op(two));
                i += 2;
            } else {
                out.push(Tok::Op(c.to_string()));
                i += 1;
            }
        }
    }
    out
}

struct Parser<'a> {
    toks: Vec<Tok>,
    pos: usize,
    env: &'a Env,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if self.peek() == Some(&Tok::Op(op.to_string())) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.peek() == Some(&Tok::Ident(kw.to_string())) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn or_expr(&mut self) -> Expr {
        let mut e = self.and_expr();
        while self.eat_kw("or") {
            let r = self.and_expr();
            e = Expr::or(e, r);
        }
        e
    }
    fn and_expr(&mut self) -> Expr {
        let mut e = self.not_expr();
        while self.eat_kw("and") {
            let r = self.not_expr();
            e = Expr::and(e, r);
        }
        e
    }
    fn not_expr(&mut self) -> Expr {
        if self.eat_kw("not") {
            let e = self.not_expr();
            return Expr::logical_not(e);
        }
        self.comparison()
    }
    fn comparison(&mut self) -> Expr {
        let a = self.arith();
        for (s, op) in [
            ("<", CmpOp::Lt),
            ("<=", CmpOp::Le),
            (">", CmpOp::Gt),
            (">=", CmpOp::Ge),
            ("==", CmpOp::Eq),
            ("!=", CmpOp::Ne),
        ] {
            if self.eat_op(s) {
                let b = self.arith();
                return Expr::cmp(op, a, b);
            }
        }
        a
    }
    fn arith(&mut self) -> Expr {
        let mut e = self.term();
        loop {
            if self.eat_op("+") {
                let r = self.term();
                e = Expr::binary(BinOp::Add, e, r);
            } else if self.eat_op("-") {
                let r = self.term();
                e = Expr::binary(BinOp::Sub, e, r);
            } else {
                return e;
            }
        }
    }
    fn term(&mut self) -> Expr {
        let mut e = self.unary();
        loop {
            let op = if self.eat_op("*") {
                BinOp::Mul
            } else if self.eat_op("//") {
                BinOp::FloorDiv
            } else if self.eat_op("%") {
                BinOp::FloorMod
            } else {
                return e;
            };
            let r = self.unary();
            e = Expr::binary(op, e, r);
        }
    }
    fn unary(&mut self) -> Expr {
        if self.eat_op("-") {
            if let Some(Tok::Num(n)) = self.peek().cloned() {
                self.pos += 1;
                return Expr::i32(-n);
            }
            let e = self.unary();
            let dt = e.dtype();
            return Expr::binary(BinOp::Mul, e, Expr::int(-1, dt));
        }
        self.atom()
    }
    fn args(&mut self) -> Vec<Expr> {
        assert!(self.eat_op("("));
        let mut v = Vec::new();
        if self.eat_op(")") {
            return v;
        }
        loop {
            if let Some(Tok::Str(_)) = self.peek() {
                // dtype string argument: handled by the caller
                v.push(Expr::i32(0));
                self.pos += 1;
            } else {
                v.push(self.or_expr());
            }
            if self.eat_op(")") {
                return v;
            }
            assert!(self.eat_op(","));
        }
    }
    fn atom(&mut self) -> Expr {
        match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Expr::i32(n)
            }
            Some(Tok::Op(o)) if o == "(" => {
                self.pos += 1;
                let e = self.or_expr();
                assert!(self.eat_op(")"));
                e
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                match name.as_str() {
                    "T.bool" => {
                        assert!(self.eat_op("("));
                        let v = self.eat_kw("True");
                        if !v {
                            assert!(self.eat_kw("False"));
                        }
                        assert!(self.eat_op(")"));
                        Expr::bool(v)
                    }
                    "T.int64" => {
                        let a = self.args();
                        Expr::i64(a[0].as_int().unwrap())
                    }
                    "T.Cast" => {
                        assert!(self.eat_op("("));
                        let dt = match self.peek().cloned() {
                            Some(Tok::Str(s)) => DataType::parse(&s).unwrap(),
                            t => panic!("dtype expected, got {t:?}"),
                        };
                        self.pos += 1;
                        assert!(self.eat_op(","));
                        let v = self.or_expr();
                        assert!(self.eat_op(")"));
                        Expr::cast(dt, v)
                    }
                    _ if name.starts_with("T.") => {
                        let a = self.args();
                        let bin = |op| Expr::binary(op, a[0].clone(), a[1].clone());
                        match &name[2..] {
                            "min" => bin(BinOp::Min),
                            "max" => bin(BinOp::Max),
                            "Div" | "truncdiv" => bin(BinOp::Div),
                            "truncmod" => bin(BinOp::Mod),
                            "floordiv" => bin(BinOp::FloorDiv),
                            "floormod" => bin(BinOp::FloorMod),
                            "Or" => Expr::or(a[0].clone(), a[1].clone()),
                            "And" => Expr::and(a[0].clone(), a[1].clone()),
                            "Not" => Expr::logical_not(a[0].clone()),
                            "Select" => Expr::select(a[0].clone(), a[1].clone(), a[2].clone()),
                            other => panic!("unknown function T.{other}"),
                        }
                    }
                    _ => self
                        .env
                        .vars
                        .get(&name)
                        .unwrap_or_else(|| panic!("unknown variable {name}"))
                        .to_expr(),
                }
            }
            t => panic!("unexpected token {t:?}"),
        }
    }
}

fn prec(e: &Expr) -> u8 {
    match e.kind() {
        ExprKind::Or(..) => 1,
        ExprKind::And(..) => 2,
        ExprKind::Not(..) => 3,
        ExprKind::Cmp(..) => 4,
        ExprKind::Binary(BinOp::Add | BinOp::Sub, ..) => 5,
        ExprKind::Binary(BinOp::Mul | BinOp::FloorDiv | BinOp::FloorMod, ..) => 6,
        ExprKind::Int(v) if *v < 0 => 7,
        _ => 10,
    }
}

fn child(e: &Expr, parent: u8, right: bool) -> String {
    let p = prec(e);
    let s = print(e);
    if p < parent || (right && p == parent) {
        format!("({s})")
    } else {
        s
    }
}

/// Prints like TVM's TVMScript expression printer.
pub fn print(e: &Expr) -> String {
    let dt = e.dtype();
    match e.kind() {
        ExprKind::Var(v) => v.name().to_string(),
        ExprKind::Int(v) => {
            if dt.is_bool() {
                format!("T.bool({})", if *v != 0 { "True" } else { "False" })
            } else if dt == DataType::i32() {
                v.to_string()
            } else {
                format!("T.{dt}({v})")
            }
        }
        ExprKind::Float(f) => format!("T.{dt}({f:?})"),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Binary(op, a, b) => {
            let sym = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::FloorDiv => "//",
                BinOp::FloorMod => "%",
                BinOp::Div => return format!("T.Div({}, {})", print(a), print(b)),
                BinOp::Mod => return format!("T.truncmod({}, {})", print(a), print(b)),
                BinOp::Min => return format!("T.min({}, {})", print(a), print(b)),
                BinOp::Max => return format!("T.max({}, {})", print(a), print(b)),
            };
            let p = prec(e);
            format!("{} {sym} {}", child(a, p, false), child(b, p, true))
        }
        ExprKind::Cmp(op, a, b) => {
            format!(
                "{} {} {}",
                child(a, 5, false),
                op.symbol(),
                child(b, 5, false)
            )
        }
        ExprKind::And(a, b) => format!("{} and {}", child(a, 2, false), child(b, 2, false)),
        ExprKind::Or(a, b) => format!("{} or {}", child(a, 1, false), child(b, 1, false)),
        ExprKind::Not(a) => format!("not {}", child(a, 3, false)),
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => format!(
            "T.Select({}, {}, {})",
            print(cond),
            print(then),
            print(otherwise)
        ),
        ExprKind::Cast(v) => format!("T.Cast(\"{dt}\", {})", print(v)),
        ExprKind::Call { op, args } => {
            let a: Vec<String> = args.iter().map(print).collect();
            let name = match op {
                Intrinsic::Other(n) => n.clone(),
                o => o.name().to_string(),
            };
            format!("T.{name}({})", a.join(", "))
        }
        ExprKind::Load { buffer, indices } => {
            let a: Vec<String> = indices.iter().map(print).collect();
            format!("{}[{}]", buffer.name, a.join(", "))
        }
        other => format!("{other:?}"),
    }
}
