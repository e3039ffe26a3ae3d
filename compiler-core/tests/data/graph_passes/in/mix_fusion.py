# Pass input: fusion patterns beyond a chain: a value with two consumers (diamond), an
# element-wise op feeding a reduction, a reduction followed by element-wise ops (softmax then
# multiply), injective ops fused with each other (transpose then reshape), the same operator
# twice (one PrimFunc, blocks renamed in the fused function), and R.ewise_fma (no legalization,
# opaque) in the middle.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((2, 16), dtype="float32"), R.Tensor((4, 8), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.matmul(x, w, out_dtype=None)
            lv1: R.Tensor((4, 8), dtype="float32") = R.nn.relu(lv)
            lv2: R.Tensor((4, 8), dtype="float32") = R.add(lv1, y)
            lv3: R.Tensor((4, 8), dtype="float32") = R.multiply(lv1, lv2)
            lv4: R.Tensor((4, 8), dtype="float32") = R.add(lv3, y)
            lv5: R.Tensor((4,), dtype="float32") = R.sum(lv4, axis=[1], keepdims=False)
            lv6: R.Tensor((4, 8), dtype="float32") = R.nn.softmax(lv4, axis=-1)
            lv7: R.Tensor((4, 8), dtype="float32") = R.multiply(lv6, lv6)
            lv8: R.Tensor((8, 4), dtype="float32") = R.permute_dims(lv7, axes=None)
            lv9: R.Tensor((2, 16), dtype="float32") = R.reshape(lv8, R.shape([2, 16]))
            lv10: R.Tensor((4, 8), dtype="float32") = R.ewise_fma(lv7, y, x)
            lv11: R.Tensor((4, 8), dtype="float32") = R.subtract(lv10, y)
            gv: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((2, 16), dtype="float32"), R.Tensor((4, 8), dtype="float32")) = (lv5, lv9, lv11)
            R.output(gv)
        return gv
