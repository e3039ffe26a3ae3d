(module
  (type (;0;) (func (param i32 i32 i32)))
  (import "env" "memory" (memory (;0;) 1))
  (global $__stack_pointer (;0;) (mut i32) i32.const 0)
  (global $__stack_limit (;1;) (mut i32) i32.const 0)
  (export "__stack_pointer" (global $__stack_pointer))
  (export "__stack_limit" (global $__stack_limit))
  (export "main" (func $main))
  (func $main (;0;) (type 0) (param $A i32) (param $B i32) (param $C i32)
    (local $i_v i32)
    i32.const 0
    local.set $i_v
    loop ;; label = @1
      local.get $C
      local.get $i_v
      i32.const 4
      i32.mul
      i32.const 2
      i32.shl
      i32.add
      local.get $A
      local.get $i_v
      i32.const 4
      i32.mul
      i32.const 2
      i32.shl
      i32.add
      v128.load align=4
      local.get $B
      local.get $i_v
      i32.const 4
      i32.mul
      i32.const 2
      i32.shl
      i32.add
      v128.load align=4
      f32x4.add
      v128.store align=4
      local.get $i_v
      i32.const 1
      i32.add
      local.tee $i_v
      i32.const 32
      i32.lt_s
      br_if 0 (;@1;)
    end
  )
)
