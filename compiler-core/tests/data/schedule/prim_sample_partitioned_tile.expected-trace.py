# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4, v5 = sch.sample_partitioned_tile(loop=l1, n=3, partition_pos=1, innerpart_factor=2, decision=[2, 4, 8])
  v6, v7, v8 = sch.sample_partitioned_tile(loop=l2, n=3, partition_pos=1, innerpart_factor=2, decision=[32, 2, 1])
  l9, l10, l11 = sch.split(loop=l1, factors=[v3, v4, v5], preserve_unit_iters=True, disable_predication=False)
  l12, l13, l14 = sch.split(loop=l2, factors=[v6, v7, v8], preserve_unit_iters=True, disable_predication=False)
