;; Dot-product kernels of the vector index (src/search/vector-index.ts), WebAssembly SIMD (f32x4).
;; Compiled by `npm run build:wasm` (scripts/build-wasm.ts, wabt) into dot-wasm.ts; a unit test
;; recompiles this file and checks the committed bytes are its current compilation.
;;
;; Rows are `stride` floats long, `stride` a multiple of 16 (the index zero-pads), 16-byte aligned;
;; `base`, `q`, `slots` and `out` are byte offsets into the memory the index lays out.
(module
  (memory (export "memory") 1)

  ;; <row, q> over `bytes` bytes (a multiple of 64): four f32x4 accumulators, 16 floats per step.
  (func $dot (param $row i32) (param $q i32) (param $bytes i32) (result f32)
    (local $end i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $end (i32.add (local.get $row) (local.get $bytes)))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $a0 (f32x4.add (local.get $a0)
          (f32x4.mul (v128.load (local.get $row)) (v128.load (local.get $q)))))
        (local.set $a1 (f32x4.add (local.get $a1)
          (f32x4.mul (v128.load offset=16 (local.get $row)) (v128.load offset=16 (local.get $q)))))
        (local.set $a2 (f32x4.add (local.get $a2)
          (f32x4.mul (v128.load offset=32 (local.get $row)) (v128.load offset=32 (local.get $q)))))
        (local.set $a3 (f32x4.add (local.get $a3)
          (f32x4.mul (v128.load offset=48 (local.get $row)) (v128.load offset=48 (local.get $q)))))
        (local.set $row (i32.add (local.get $row) (i32.const 64)))
        (local.set $q (i32.add (local.get $q) (i32.const 64)))
        (br $step)))
    (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
      (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))

  ;; out[i] = <row slots[i], q> for i < count (slots: i32 row numbers; out: f32).
  (func (export "dotSlots")
    (param $base i32) (param $stride i32) (param $q i32) (param $slots i32) (param $count i32) (param $out i32)
    (local $bytes i32) (local $end i32)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (i32.add (local.get $slots) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $slots) (local.get $end)))
        (f32.store (local.get $out)
          (call $dot
            (i32.add (local.get $base) (i32.mul (i32.load (local.get $slots)) (local.get $bytes)))
            (local.get $q)
            (local.get $bytes)))
        (local.set $slots (i32.add (local.get $slots) (i32.const 4)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $next))))

  ;; out[r] = <row r, q> for r < count (every row from `base` on).
  (func (export "dotRows")
    (param $base i32) (param $stride i32) (param $q i32) (param $count i32) (param $out i32)
    (local $bytes i32) (local $end i32)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (f32.store (local.get $out) (call $dot (local.get $base) (local.get $q) (local.get $bytes)))
        (local.set $base (i32.add (local.get $base) (local.get $bytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $next)))))
