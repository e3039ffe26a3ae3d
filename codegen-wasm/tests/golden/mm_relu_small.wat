(module
  (type (;0;) (func (param i32 i32 i32)))
  (import "env" "memory" (memory (;0;) 1))
  (global $__stack_pointer (;0;) (mut i32) i32.const 0)
  (global $__stack_limit (;1;) (mut i32) i32.const 0)
  (export "__stack_pointer" (global $__stack_pointer))
  (export "__stack_limit" (global $__stack_limit))
  (export "mm_relu" (func $mm_relu))
  (func $mm_relu (;0;) (type 0) (param $A i32) (param $B i32) (param $C i32)
    (local $Y i32) (local $i i32) (local $Y_off i32) (local $j i32) (local $Y_local_0 f32) (local $k i32) (local $i_1 i32)
    global.get $__stack_pointer
    local.tee $Y
    i32.const 256
    i32.add
    global.set $__stack_pointer
    global.get $__stack_pointer
    global.get $__stack_limit
    i32.gt_u
    if ;; label = @1
      unreachable
    end
    i32.const 0
    local.set $i
    loop ;; label = @1
      local.get $i
      i32.const 8
      i32.mul
      local.set $Y_off
      i32.const 0
      local.set $j
      loop ;; label = @2
        local.get $Y
        local.get $Y_off
        local.get $j
        i32.add
        i32.const 2
        i32.shl
        i32.add
        f32.load
        local.set $Y_local_0
        i32.const 0
        local.set $k
        loop ;; label = @3
          local.get $k
          i32.const 0
          i32.eq
          if ;; label = @4
            f32.const 0x0p+0 (;=0;)
            local.set $Y_local_0
          end
          local.get $Y_local_0
          local.get $A
          local.get $Y_off
          local.get $k
          i32.add
          i32.const 2
          i32.shl
          i32.add
          f32.load
          local.get $B
          local.get $k
          i32.const 8
          i32.mul
          local.get $j
          i32.add
          i32.const 2
          i32.shl
          i32.add
          f32.load
          f32.mul
          f32.add
          local.set $Y_local_0
          local.get $k
          i32.const 1
          i32.add
          local.tee $k
          i32.const 8
          i32.lt_s
          br_if 0 (;@3;)
        end
        local.get $Y
        local.get $Y_off
        local.get $j
        i32.add
        i32.const 2
        i32.shl
        i32.add
        local.get $Y_local_0
        f32.store
        local.get $j
        i32.const 1
        i32.add
        local.tee $j
        i32.const 8
        i32.lt_s
        br_if 0 (;@2;)
      end
      local.get $i
      i32.const 1
      i32.add
      local.tee $i
      i32.const 8
      i32.lt_s
      br_if 0 (;@1;)
    end
    i32.const 0
    local.set $i_1
    loop ;; label = @1
      local.get $C
      local.get $i_1
      i32.const 8
      i32.mul
      i32.const 2
      i32.shl
      i32.add
      f32.const 0x0p+0 (;=0;)
      f32x4.splat
      local.get $Y
      local.get $i_1
      i32.const 8
      i32.mul
      i32.const 2
      i32.shl
      i32.add
      v128.load align=4
      f32x4.pmax
      v128.store align=4
      local.get $C
      local.get $i_1
      i32.const 8
      i32.mul
      i32.const 2
      i32.shl
      i32.add
      f32.const 0x0p+0 (;=0;)
      f32x4.splat
      local.get $Y
      local.get $i_1
      i32.const 8
      i32.mul
      i32.const 2
      i32.shl
      i32.add
      v128.load offset=16 align=4
      f32x4.pmax
      v128.store offset=16 align=4
      local.get $i_1
      i32.const 1
      i32.add
      local.tee $i_1
      i32.const 8
      i32.lt_s
      br_if 0 (;@1;)
    end
    local.get $Y
    global.set $__stack_pointer
  )
)
