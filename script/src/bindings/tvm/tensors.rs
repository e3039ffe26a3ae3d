//! Devices (`tvm.cpu()`, `tvm.device(...)`) and runtime tensors
//! (`tvm.runtime.tensor`, `empty`, `.numpy()`, `.copyfrom`).

use super::*;

pub(super) fn device_arg(it: &mut Interp, v: Option<Value>) -> Res<Device> {
    match v {
        None | Some(Value::None) => Ok(Device::cpu()),
        Some(Value::Host(o)) => match tvm_obj(&o) {
            Some(Obj::Device(d)) => Ok(*d),
            _ => Err(PyErr::type_error("expected a device")),
        },
        Some(Value::Str(s)) => make_device(it, &s, 0),
        Some(other) => Err(PyErr::type_error(format!(
            "expected a device, got {}",
            other.type_name()
        ))),
    }
}

fn make_device(it: &mut Interp, kind: &str, index: i64) -> Res<Device> {
    let _ = it;
    let k: &'static str = match kind.split_whitespace().next().unwrap_or("") {
        "cpu" | "llvm" | "c" | "ext_dev" => "cpu",
        "cuda" | "gpu" | "nvptx" => "cuda",
        "metal" => "metal",
        "vulkan" => "vulkan",
        "opencl" | "cl" => "opencl",
        "rocm" => "rocm",
        "webgpu" => "webgpu",
        other => return Err(PyErr::value_error(format!("Unknown device: {other}"))),
    };
    Ok(Device { kind: k, index })
}

pub(super) fn dev_ctor(it: &mut Interp, a: Args) -> Res<Value> {
    let kind = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_else(|| "cpu".into());
    let index = a.pos.first().and_then(num_i64).unwrap_or(0);
    Ok(host(Obj::Device(make_device(it, &kind, index)?)))
}

pub(super) fn tvm_device(it: &mut Interp, mut a: Args) -> Res<Value> {
    let kind = a.req(0, "dev_type", "device")?;
    let index = a.take(1, "dev_id").and_then(|v| num_i64(&v)).unwrap_or(0);
    let d = match &kind {
        Value::Str(s) => make_device(it, s, index)?,
        other => {
            let code = num_i64(other)
                .ok_or_else(|| PyErr::type_error("device type must be a string or an int"))?;
            let k = match code {
                1 => "cpu",
                2 => "cuda",
                4 => "opencl",
                7 => "vulkan",
                8 => "metal",
                10 => "rocm",
                15 => "webgpu",
                _ => return Err(PyErr::value_error(format!("Unknown device type {code}"))),
            };
            Device { kind: k, index }
        }
    };
    Ok(host(Obj::Device(d)))
}

pub(super) fn tensor_value(it: &mut Interp, arr: NDArray, device: Device) -> Res<Value> {
    let data = it.array_obj(arr)?;
    Ok(host(Obj::Tensor { data, device }))
}

pub(super) fn runtime_tensor(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "arr", "tensor")?;
    let dev = a.take(1, "device").or_else(|| a.take_kw("dev"));
    let device = device_arg(it, dev)?;
    let arr = match &v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Tensor { data, .. }) => data.borrow().clone(),
            _ => crate::python::numpy::module::array_from(it, &v, None)?,
        },
        _ => crate::python::numpy::module::array_from(it, &v, None)?,
    };
    tensor_value(it, arr, device)
}

pub(super) fn runtime_empty(it: &mut Interp, mut a: Args) -> Res<Value> {
    let shape = a.req(0, "shape", "empty")?;
    let dtype = a.take(1, "dtype").unwrap_or(Value::str("float32"));
    let dev = a.take(2, "device").or_else(|| a.take_kw("dev"));
    let device = device_arg(it, dev)?;
    let dims = crate::python::numpy::shape_args(it, std::slice::from_ref(&shape))?;
    let shape: Vec<usize> = dims.into_iter().map(|d| d.max(0) as usize).collect();
    let dt = crate::python::numpy::dtype_arg(it, &dtype)?;
    let n: usize = shape.iter().fold(1usize, |acc, &d| acc.saturating_mul(d));
    it.check_alloc((n as u64).saturating_mul(dt.bytes() as u64))?;
    let arr = NDArray::zeros(dt, &shape).map_err(|e| PyErr::new(ExcKind::MemoryError, e))?;
    tensor_value(it, arr, device)
}

pub(super) fn tensor_method(
    it: &mut Interp,
    o: &Obj,
    this: &Value,
    name: &str,
    a: Args,
) -> Res<Value> {
    let Obj::Tensor { data, device } = o else {
        return Err(PyErr::type_error("not a tensor"));
    };
    match name {
        "numpy" | "asnumpy" => {
            let arr = data.borrow().clone();
            it.new_array(arr)
        }
        "copyfrom" => {
            let v = a
                .pos
                .first()
                .cloned()
                .ok_or_else(|| PyErr::type_error("copyfrom() takes an array"))?;
            let src = match &v {
                Value::Host(h) => match tvm_obj(h) {
                    Some(Obj::Tensor { data, .. }) => data.borrow().clone(),
                    _ => crate::python::numpy::module::array_from(it, &v, None)?,
                },
                _ => crate::python::numpy::module::array_from(it, &v, None)?,
            };
            let (shape, dt) = {
                let d = data.borrow();
                (d.shape().to_vec(), d.dtype())
            };
            if src.shape() != shape.as_slice() {
                return Err(PyErr::value_error(format!(
                    "array shape do not match the shape of Tensor {} vs {}",
                    shape_text(src.shape()),
                    shape_text(&shape)
                )));
            }
            let srcv = it.new_array(src)?;
            let conv = crate::python::numpy::module::array_from(it, &srcv, Some(dt))?;
            data.update(|d| *d = conv);
            Ok(this.clone())
        }
        "copyto" => {
            let target = a
                .pos
                .first()
                .cloned()
                .ok_or_else(|| PyErr::type_error("copyto() takes a device or tensor"))?;
            match &target {
                Value::Host(h) => match tvm_obj(h) {
                    Some(Obj::Device(d)) => {
                        let arr = data.borrow().clone();
                        tensor_value(it, arr, *d)
                    }
                    Some(Obj::Tensor { data: dst, .. }) => {
                        let src = data.borrow().clone();
                        dst.update(|d| *d = src);
                        Ok(target.clone())
                    }
                    _ => Err(PyErr::type_error("copyto() takes a device or tensor")),
                },
                _ => Err(PyErr::type_error("copyto() takes a device or tensor")),
            }
        }
        _ => {
            let _ = device;
            Err(PyErr::attribute_error(format!(
                "'Tensor' object has no attribute '{name}'"
            )))
        }
    }
}
