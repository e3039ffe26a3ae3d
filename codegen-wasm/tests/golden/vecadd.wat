(module
  (type (;0;) (func (param i32 i32 i32)))
  (import "env" "memory" (memory (;0;) 1))
  (global $__stack_pointer (;0;) (mut i32) i32.const 0)
  (global $__stack_limit (;1;) (mut i32) i32.const 0)
  (export "__stack_pointer" (global $__stack_pointer))
  (export "__stack_limit" (global $__stack_limit))
  (export "main" (func $main))
  (func $main (;0;) (type 0) (param $A i32) (param $B i32) (param $C i32)
    (local $i i32)
    i32.const 0
    local.set $i
    loop ;; label = @1
      local.get $C
      local.get $i
      i32.const 2
      i32.shl
      i32.add
      local.get $A
      local.get $i
      i32.const 2
      i32.shl
      i32.add
      f32.load
      local.get $B
      local.get $i
      i32.const 2
      i32.shl
      i32.add
      f32.load
      f32.add
      f32.store
      local.get $i
      i32.const 1
      i32.add
      local.tee $i
      i32.const 128
      i32.lt_s
      br_if 0 (;@1;)
    end
  )
)
