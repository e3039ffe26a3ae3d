(module
  (type (;0;) (func (param i32 i32 i32)))
  (import "env" "memory" (memory (;0;) 1))
  (global $__stack_pointer (;0;) (mut i32) i32.const 0)
  (global $__stack_limit (;1;) (mut i32) i32.const 0)
  (export "__stack_pointer" (global $__stack_pointer))
  (export "__stack_limit" (global $__stack_limit))
  (export "main" (func $main))
  (export "__task_main_0" (func $__task_main_0))
  (func $main (;0;) (type 0) (param $A i32) (param $B i32) (param $C i32)
    (local $closure i32)
    global.get $__stack_pointer
    local.tee $closure
    i32.const 48
    i32.add
    global.set $__stack_pointer
    global.get $__stack_pointer
    global.get $__stack_limit
    i32.gt_u
    if ;; label = @1
      unreachable
    end
    local.get $closure
    local.get $C
    i32.store
    local.get $closure
    local.get $A
    i32.store offset=16
    local.get $closure
    local.get $B
    i32.store offset=32
    i32.const 0
    i32.const 16
    local.get $closure
    call $__task_main_0
    local.get $closure
    global.set $__stack_pointer
  )
  (func $__task_main_0 (;1;) (type 0) (param $begin i32) (param $end i32) (param $closure i32)
    (local $C i32) (local $A i32) (local $B i32) (local $i_0 i32)
    local.get $closure
    i32.load
    local.set $C
    local.get $closure
    i32.load offset=16
    local.set $A
    local.get $closure
    i32.load offset=32
    local.set $B
    local.get $begin
    local.set $i_0
    block ;; label = @1
      local.get $i_0
      local.get $end
      i32.ge_s
      br_if 0 (;@1;)
      loop ;; label = @2
        local.get $C
        local.get $i_0
        i32.const 8
        i32.mul
        i32.const 2
        i32.shl
        i32.add
        local.get $A
        local.get $i_0
        i32.const 8
        i32.mul
        i32.const 2
        i32.shl
        i32.add
        v128.load align=4
        local.get $B
        local.get $i_0
        i32.const 8
        i32.mul
        i32.const 2
        i32.shl
        i32.add
        v128.load align=4
        f32x4.add
        v128.store align=4
        local.get $C
        local.get $i_0
        i32.const 8
        i32.mul
        i32.const 2
        i32.shl
        i32.add
        local.get $A
        local.get $i_0
        i32.const 8
        i32.mul
        i32.const 2
        i32.shl
        i32.add
        v128.load offset=16 align=4
        local.get $B
        local.get $i_0
        i32.const 8
        i32.mul
        i32.const 2
        i32.shl
        i32.add
        v128.load offset=16 align=4
        f32x4.add
        v128.store offset=16 align=4
        local.get $i_0
        i32.const 1
        i32.add
        local.tee $i_0
        local.get $end
        i32.lt_s
        br_if 0 (;@2;)
      end
    end
  )
)
