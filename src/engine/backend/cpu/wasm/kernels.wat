;; SIMD kernels of the CPU backend. The source of truth is this file; kernels.wasm is built from
;; it by assemble.ts (`node --import tsx src/engine/backend/cpu/wasm/assemble.ts`), and a test
;; checks that the two agree. All pointers are byte offsets into the one shared memory that
;; holds the weights, the KV pool and the activations.
;;
;; Plain JS runs one float at a time; these kernels run four (v128) and fuse multiply-add where
;; the CPU has it (relaxed_madd), which is where the CPU backend's speed comes from.
(module
  (import "env" "memory" (memory 1 65536 shared))

  (func $hsum (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; y = dot + bias, or y += dot + bias when accumulating (a fused residual add)
  (func $store (param $y i32) (param $dot f32) (param $b i32) (param $acc i32)
    (f32.store (local.get $y)
      (f32.add
        (f32.add (local.get $dot) (f32.load (local.get $b)))
        (if (result f32) (local.get $acc) (then (f32.load (local.get $y))) (else (f32.const 0))))))

  ;; The same for four neighbouring outputs at once: the lanes of s0..s3 are summed by two
  ;; rounds of shuffles into one vector [sum s0, sum s1, sum s2, sum s3].
  (func $store4 (param $y i32) (param $s0 v128) (param $s1 v128) (param $s2 v128) (param $s3 v128) (param $b i32) (param $acc i32)
    (local $ab v128) (local $cd v128) (local $sums v128)
    (local.set $ab (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $s0) (local.get $s1))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $s0) (local.get $s1))))
    (local.set $cd (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $s2) (local.get $s3))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $s2) (local.get $s3))))
    (local.set $sums (f32x4.add
      (f32x4.add
        (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $ab) (local.get $cd))
        (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $ab) (local.get $cd)))
      (v128.load (local.get $b))))
    (v128.store (local.get $y)
      (if (result v128) (local.get $acc)
        (then (f32x4.add (local.get $sums) (v128.load (local.get $y))))
        (else (local.get $sums)))))

;; Two neighbouring outputs, each summed exactly as $store4 sums it (lanes 0+2, 1+3, then
  ;; those two), so an output's bits do not depend on which block computed it.
  (func $store2 (param $y i32) (param $s0 v128) (param $s1 v128) (param $b i32) (param $acc i32)
    (local $ab v128) (local $sums v128)
    (local.set $ab (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $s0) (local.get $s1))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $s0) (local.get $s1))))
    (local.set $sums (f32x4.add
      (f32x4.add (local.get $ab) (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $ab) (local.get $ab)))
      (v128.load64_zero (local.get $b))))
    (v128.store64_lane 0 (local.get $y)
      (if (result v128) (local.get $acc)
        (then (f32x4.add (local.get $sums) (v128.load64_zero (local.get $y))))
        (else (local.get $sums)))))

  ;; Two rows of x against six rows of w: 12 sums of 4 lanes each, plus two x vectors and one of
  ;; w: 15 vector registers, all that x64 code gets besides V8's scratch one. A sum's multiply-
  ;; adds depend on each other (4 cycles apart) and the CPU starts two a cycle, so it takes 8
  ;; sums in flight just to keep up; 12 leave room for the loads, while 2x4 (8 sums) stalls now
  ;; and then. The k loop is unrolled four times and walks pointers with constant offsets, so each
  ;; load is one instruction with no address arithmetic.
  (func $block2x6 (param $x0 i32) (param $x1 i32) (param $w0 i32) (param $kb i32)
                  (param $y0 i32) (param $y1 i32) (param $b i32) (param $acc i32)
    (local $w1 i32) (local $w2 i32) (local $w3 i32) (local $w4 i32) (local $w5 i32) (local $end i32) (local $end4 i32)
    (local $a0 v128) (local $a1 v128) (local $bv v128)
    (local $c00 v128) (local $c01 v128) (local $c02 v128) (local $c03 v128) (local $c04 v128) (local $c05 v128)
    (local $c10 v128) (local $c11 v128) (local $c12 v128) (local $c13 v128) (local $c14 v128) (local $c15 v128)
    (local.set $w1 (i32.add (local.get $w0) (local.get $kb)))
    (local.set $w2 (i32.add (local.get $w1) (local.get $kb)))
    (local.set $w3 (i32.add (local.get $w2) (local.get $kb)))
    (local.set $w4 (i32.add (local.get $w3) (local.get $kb)))
    (local.set $w5 (i32.add (local.get $w4) (local.get $kb)))
    (local.set $end (i32.add (local.get $x0) (local.get $kb)))
    (local.set $end4 (i32.add (local.get $x0) (i32.and (local.get $kb) (i32.const -64))))
    (if (i32.lt_u (local.get $x0) (local.get $end4))
      (then
        (loop $four
          (local.set $a0 (v128.load offset=0 (local.get $x0))) (local.set $a1 (v128.load offset=0 (local.get $x1)))
          (local.set $bv (v128.load offset=0 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
          (local.set $bv (v128.load offset=0 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
          (local.set $bv (v128.load offset=0 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
          (local.set $bv (v128.load offset=0 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
          (local.set $bv (v128.load offset=0 (local.get $w4))) (local.set $c04 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c04))) (local.set $c14 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c14)))
          (local.set $bv (v128.load offset=0 (local.get $w5))) (local.set $c05 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c05))) (local.set $c15 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c15)))
          (local.set $a0 (v128.load offset=16 (local.get $x0))) (local.set $a1 (v128.load offset=16 (local.get $x1)))
          (local.set $bv (v128.load offset=16 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
          (local.set $bv (v128.load offset=16 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
          (local.set $bv (v128.load offset=16 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
          (local.set $bv (v128.load offset=16 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
          (local.set $bv (v128.load offset=16 (local.get $w4))) (local.set $c04 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c04))) (local.set $c14 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c14)))
          (local.set $bv (v128.load offset=16 (local.get $w5))) (local.set $c05 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c05))) (local.set $c15 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c15)))
          (local.set $a0 (v128.load offset=32 (local.get $x0))) (local.set $a1 (v128.load offset=32 (local.get $x1)))
          (local.set $bv (v128.load offset=32 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
          (local.set $bv (v128.load offset=32 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
          (local.set $bv (v128.load offset=32 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
          (local.set $bv (v128.load offset=32 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
          (local.set $bv (v128.load offset=32 (local.get $w4))) (local.set $c04 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c04))) (local.set $c14 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c14)))
          (local.set $bv (v128.load offset=32 (local.get $w5))) (local.set $c05 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c05))) (local.set $c15 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c15)))
          (local.set $a0 (v128.load offset=48 (local.get $x0))) (local.set $a1 (v128.load offset=48 (local.get $x1)))
          (local.set $bv (v128.load offset=48 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
          (local.set $bv (v128.load offset=48 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
          (local.set $bv (v128.load offset=48 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
          (local.set $bv (v128.load offset=48 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
          (local.set $bv (v128.load offset=48 (local.get $w4))) (local.set $c04 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c04))) (local.set $c14 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c14)))
          (local.set $bv (v128.load offset=48 (local.get $w5))) (local.set $c05 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c05))) (local.set $c15 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c15)))
          (local.set $x0 (i32.add (local.get $x0) (i32.const 64))) (local.set $x1 (i32.add (local.get $x1) (i32.const 64)))
          (local.set $w0 (i32.add (local.get $w0) (i32.const 64))) (local.set $w1 (i32.add (local.get $w1) (i32.const 64)))
          (local.set $w2 (i32.add (local.get $w2) (i32.const 64))) (local.set $w3 (i32.add (local.get $w3) (i32.const 64)))
          (local.set $w4 (i32.add (local.get $w4) (i32.const 64))) (local.set $w5 (i32.add (local.get $w5) (i32.const 64)))
          (br_if $four (i32.lt_u (local.get $x0) (local.get $end4))))))
    ;; the last K % 16 values, four at a time
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $x0) (local.get $end)))
        (local.set $a0 (v128.load offset=0 (local.get $x0))) (local.set $a1 (v128.load offset=0 (local.get $x1)))
        (local.set $bv (v128.load offset=0 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
        (local.set $bv (v128.load offset=0 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
        (local.set $bv (v128.load offset=0 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
        (local.set $bv (v128.load offset=0 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
        (local.set $bv (v128.load offset=0 (local.get $w4))) (local.set $c04 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c04))) (local.set $c14 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c14)))
        (local.set $bv (v128.load offset=0 (local.get $w5))) (local.set $c05 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c05))) (local.set $c15 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c15)))
        (local.set $x0 (i32.add (local.get $x0) (i32.const 16))) (local.set $x1 (i32.add (local.get $x1) (i32.const 16)))
        (local.set $w0 (i32.add (local.get $w0) (i32.const 16))) (local.set $w1 (i32.add (local.get $w1) (i32.const 16)))
        (local.set $w2 (i32.add (local.get $w2) (i32.const 16))) (local.set $w3 (i32.add (local.get $w3) (i32.const 16)))
        (local.set $w4 (i32.add (local.get $w4) (i32.const 16))) (local.set $w5 (i32.add (local.get $w5) (i32.const 16)))
        (br $one)))
    (call $store4 (local.get $y0) (local.get $c00) (local.get $c01) (local.get $c02) (local.get $c03) (local.get $b) (local.get $acc))
    (call $store2 (i32.add (local.get $y0) (i32.const 16)) (local.get $c04) (local.get $c05) (i32.add (local.get $b) (i32.const 16)) (local.get $acc))
    (call $store4 (local.get $y1) (local.get $c10) (local.get $c11) (local.get $c12) (local.get $c13) (local.get $b) (local.get $acc))
    (call $store2 (i32.add (local.get $y1) (i32.const 16)) (local.get $c14) (local.get $c15) (i32.add (local.get $b) (i32.const 16)) (local.get $acc)))

  ;; Two rows of x against four rows of w: 8 sums of 4 lanes each, plus two x vectors and one of
  ;; w: 11 of the 16 vector registers x64 code gets, so nothing spills. The k loop is unrolled
  ;; four times and walks pointers with constant offsets, so each load is one instruction with no
  ;; address arithmetic: the multiply-adds, two per cycle, are then the limit. Every sum still
  ;; adds its terms in k order, as the 1x4 and 1x8 blocks do.
  (func $block2x4 (param $x0 i32) (param $x1 i32) (param $w0 i32) (param $kb i32)
                  (param $y0 i32) (param $y1 i32) (param $b i32) (param $acc i32)
    (local $w1 i32) (local $w2 i32) (local $w3 i32) (local $end i32) (local $end4 i32)
    (local $a0 v128) (local $a1 v128) (local $bv v128)
    (local $c00 v128) (local $c01 v128) (local $c02 v128) (local $c03 v128)
    (local $c10 v128) (local $c11 v128) (local $c12 v128) (local $c13 v128)
    (local.set $w1 (i32.add (local.get $w0) (local.get $kb)))
    (local.set $w2 (i32.add (local.get $w1) (local.get $kb)))
    (local.set $w3 (i32.add (local.get $w2) (local.get $kb)))
    (local.set $end (i32.add (local.get $x0) (local.get $kb)))
    (local.set $end4 (i32.add (local.get $x0) (i32.and (local.get $kb) (i32.const -64))))
    (if (i32.lt_u (local.get $x0) (local.get $end4))
      (then
        (loop $four
          (local.set $a0 (v128.load offset=0 (local.get $x0))) (local.set $a1 (v128.load offset=0 (local.get $x1)))
          (local.set $bv (v128.load offset=0 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
          (local.set $bv (v128.load offset=0 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
          (local.set $bv (v128.load offset=0 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
          (local.set $bv (v128.load offset=0 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
          (local.set $a0 (v128.load offset=16 (local.get $x0))) (local.set $a1 (v128.load offset=16 (local.get $x1)))
          (local.set $bv (v128.load offset=16 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
          (local.set $bv (v128.load offset=16 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
          (local.set $bv (v128.load offset=16 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
          (local.set $bv (v128.load offset=16 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
          (local.set $a0 (v128.load offset=32 (local.get $x0))) (local.set $a1 (v128.load offset=32 (local.get $x1)))
          (local.set $bv (v128.load offset=32 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
          (local.set $bv (v128.load offset=32 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
          (local.set $bv (v128.load offset=32 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
          (local.set $bv (v128.load offset=32 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
          (local.set $a0 (v128.load offset=48 (local.get $x0))) (local.set $a1 (v128.load offset=48 (local.get $x1)))
          (local.set $bv (v128.load offset=48 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
          (local.set $bv (v128.load offset=48 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
          (local.set $bv (v128.load offset=48 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
          (local.set $bv (v128.load offset=48 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
          (local.set $x0 (i32.add (local.get $x0) (i32.const 64))) (local.set $x1 (i32.add (local.get $x1) (i32.const 64)))
          (local.set $w0 (i32.add (local.get $w0) (i32.const 64))) (local.set $w1 (i32.add (local.get $w1) (i32.const 64)))
          (local.set $w2 (i32.add (local.get $w2) (i32.const 64))) (local.set $w3 (i32.add (local.get $w3) (i32.const 64)))
          (br_if $four (i32.lt_u (local.get $x0) (local.get $end4))))))
    ;; the last K % 16 values, four at a time
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $x0) (local.get $end)))
        (local.set $a0 (v128.load offset=0 (local.get $x0))) (local.set $a1 (v128.load offset=0 (local.get $x1)))
        (local.set $bv (v128.load offset=0 (local.get $w0))) (local.set $c00 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c00))) (local.set $c10 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c10)))
        (local.set $bv (v128.load offset=0 (local.get $w1))) (local.set $c01 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c01))) (local.set $c11 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c11)))
        (local.set $bv (v128.load offset=0 (local.get $w2))) (local.set $c02 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c02))) (local.set $c12 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c12)))
        (local.set $bv (v128.load offset=0 (local.get $w3))) (local.set $c03 (f32x4.relaxed_madd (local.get $a0) (local.get $bv) (local.get $c03))) (local.set $c13 (f32x4.relaxed_madd (local.get $a1) (local.get $bv) (local.get $c13)))
        (local.set $x0 (i32.add (local.get $x0) (i32.const 16))) (local.set $x1 (i32.add (local.get $x1) (i32.const 16)))
        (local.set $w0 (i32.add (local.get $w0) (i32.const 16))) (local.set $w1 (i32.add (local.get $w1) (i32.const 16)))
        (local.set $w2 (i32.add (local.get $w2) (i32.const 16))) (local.set $w3 (i32.add (local.get $w3) (i32.const 16)))
        (br $one)))
    (call $store4 (local.get $y0) (local.get $c00) (local.get $c01) (local.get $c02) (local.get $c03) (local.get $b) (local.get $acc))
    (call $store4 (local.get $y1) (local.get $c10) (local.get $c11) (local.get $c12) (local.get $c13) (local.get $b) (local.get $acc)))

  (func $block1x4 (param $x0 i32) (param $w0 i32) (param $kb i32) (param $y0 i32) (param $b i32) (param $acc i32)
    (local $w1 i32) (local $w2 i32) (local $w3 i32) (local $i i32)
    (local $a0 v128) (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128)
    (local.set $w1 (i32.add (local.get $w0) (local.get $kb)))
    (local.set $w2 (i32.add (local.get $w1) (local.get $kb)))
    (local.set $w3 (i32.add (local.get $w2) (local.get $kb)))
    (loop $k
      (local.set $a0 (v128.load (i32.add (local.get $x0) (local.get $i))))
      (local.set $c0 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w0) (local.get $i))) (local.get $c0)))
      (local.set $c1 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w1) (local.get $i))) (local.get $c1)))
      (local.set $c2 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w2) (local.get $i))) (local.get $c2)))
      (local.set $c3 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w3) (local.get $i))) (local.get $c3)))
      (br_if $k (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $kb))))
    (call $store4 (local.get $y0) (local.get $c0) (local.get $c1) (local.get $c2) (local.get $c3) (local.get $b) (local.get $acc)))

  ;; One row against eight rows of w: decode at batch 1 streams the weights through this, and
  ;; eight streams at once keep more loads in flight than four.
  (func $block1x8 (param $x0 i32) (param $w0 i32) (param $kb i32) (param $y0 i32) (param $b i32) (param $acc i32)
    (local $w1 i32) (local $w2 i32) (local $w3 i32) (local $w4 i32) (local $w5 i32) (local $w6 i32) (local $w7 i32) (local $i i32)
    (local $a0 v128) (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128) (local $c4 v128) (local $c5 v128) (local $c6 v128) (local $c7 v128)
    (local.set $w1 (i32.add (local.get $w0) (local.get $kb)))
    (local.set $w2 (i32.add (local.get $w1) (local.get $kb)))
    (local.set $w3 (i32.add (local.get $w2) (local.get $kb)))
    (local.set $w4 (i32.add (local.get $w3) (local.get $kb)))
    (local.set $w5 (i32.add (local.get $w4) (local.get $kb)))
    (local.set $w6 (i32.add (local.get $w5) (local.get $kb)))
    (local.set $w7 (i32.add (local.get $w6) (local.get $kb)))
    (loop $k
      (local.set $a0 (v128.load (i32.add (local.get $x0) (local.get $i))))
      (local.set $c0 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w0) (local.get $i))) (local.get $c0)))
      (local.set $c1 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w1) (local.get $i))) (local.get $c1)))
      (local.set $c2 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w2) (local.get $i))) (local.get $c2)))
      (local.set $c3 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w3) (local.get $i))) (local.get $c3)))
      (local.set $c4 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w4) (local.get $i))) (local.get $c4)))
      (local.set $c5 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w5) (local.get $i))) (local.get $c5)))
      (local.set $c6 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w6) (local.get $i))) (local.get $c6)))
      (local.set $c7 (f32x4.relaxed_madd (local.get $a0) (v128.load (i32.add (local.get $w7) (local.get $i))) (local.get $c7)))
      (br_if $k (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $kb))))
    (call $store4 (local.get $y0) (local.get $c0) (local.get $c1) (local.get $c2) (local.get $c3) (local.get $b) (local.get $acc))
    (call $store4 (i32.add (local.get $y0) (i32.const 16)) (local.get $c4) (local.get $c5) (local.get $c6) (local.get $c7) (i32.add (local.get $b) (i32.const 16)) (local.get $acc)))
  (func $block1x1 (param $x0 i32) (param $w0 i32) (param $kb i32) (param $y0 i32) (param $b i32) (param $acc i32)
    (local $i i32) (local $c0 v128)
    (loop $k
      (local.set $c0 (f32x4.relaxed_madd
        (v128.load (i32.add (local.get $x0) (local.get $i)))
        (v128.load (i32.add (local.get $w0) (local.get $i)))
        (local.get $c0)))
      (br_if $k (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $kb))))
    (call $store (local.get $y0) (call $hsum (local.get $c0)) (local.get $b) (local.get $acc)))

  ;; y[t, n] (+)= b[n] + x[t, :] . w[n, :] for t < rows and n0 <= n < n1; w packed [N, K].
  ;; K must be a multiple of 4. Rows go in tiles of 64 so a tile of x stays in cache while the
  ;; weight rows [n0, n1) stream past once per tile (cpu-forward.ts hands out ~192 KB of them at a
  ;; time). Pairs of rows take 2x6 blocks (2x4 for what sixes leave), an odd last row 1x8
  ;; blocks, the last N % 4 columns one at a time. Each output is summed in the same order whichever block computes it, so a
  ;; row's result does not depend on its neighbours.
  (func (export "matmul") (param $x i32) (param $w i32) (param $b i32) (param $y i32) (param $rows i32)
                          (param $k i32) (param $nTotal i32) (param $n0 i32) (param $n1 i32) (param $acc i32)
    (local $kb i32) (local $yRow i32) (local $t0 i32) (local $tEnd i32) (local $t i32) (local $n i32) (local $nQuadEnd i32) (local $sextetEnd i32)
    (local.set $kb (i32.shl (local.get $k) (i32.const 2)))
    (local.set $yRow (i32.shl (local.get $nTotal) (i32.const 2)))
    (local.set $nQuadEnd (i32.add (local.get $n0) (i32.and (i32.sub (local.get $n1) (local.get $n0)) (i32.const -4))))
    ;; [n0, nQuadEnd) is 12m, 12m + 4 or 12m + 8 columns: 2m sextets, then 0, 1 or 2 quads
    (local.set $sextetEnd (i32.sub (local.get $nQuadEnd)
      (i32.rem_u (i32.sub (local.get $nQuadEnd) (local.get $n0)) (i32.const 12))))
    (block $done
      (loop $tiles
        (br_if $done (i32.ge_s (local.get $t0) (local.get $rows)))
        (local.set $tEnd (select (local.get $rows) (i32.add (local.get $t0) (i32.const 64))
                                 (i32.lt_s (local.get $rows) (i32.add (local.get $t0) (i32.const 64)))))
        ;; pairs of rows: six columns at a time, then four (at most two quads, so that six and
        ;; four cover every multiple of four)
        (local.set $n (local.get $n0))
        (block $sextetsDone
          (loop $sextets
            (br_if $sextetsDone (i32.ge_s (local.get $n) (local.get $sextetEnd)))
            (local.set $t (local.get $t0))
            (block $pairsDone
              (loop $pairs
                (br_if $pairsDone (i32.gt_s (i32.add (local.get $t) (i32.const 2)) (local.get $tEnd)))
                (call $block2x6
                  (i32.add (local.get $x) (i32.mul (local.get $t) (local.get $kb)))
                  (i32.add (local.get $x) (i32.mul (i32.add (local.get $t) (i32.const 1)) (local.get $kb)))
                  (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $kb)))
                  (local.get $kb)
                  (i32.add (local.get $y) (i32.add (i32.mul (local.get $t) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2))))
                  (i32.add (local.get $y) (i32.add (i32.mul (i32.add (local.get $t) (i32.const 1)) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2))))
                  (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 2)))
                  (local.get $acc))
                (local.set $t (i32.add (local.get $t) (i32.const 2)))
                (br $pairs)))
            (local.set $n (i32.add (local.get $n) (i32.const 6)))
            (br $sextets)))
        (block $quadsDone
          (loop $quads
            (br_if $quadsDone (i32.ge_s (local.get $n) (local.get $nQuadEnd)))
            (local.set $t (local.get $t0))
            (block $pairsDone
              (loop $pairs
                (br_if $pairsDone (i32.gt_s (i32.add (local.get $t) (i32.const 2)) (local.get $tEnd)))
                (call $block2x4
                  (i32.add (local.get $x) (i32.mul (local.get $t) (local.get $kb)))
                  (i32.add (local.get $x) (i32.mul (i32.add (local.get $t) (i32.const 1)) (local.get $kb)))
                  (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $kb)))
                  (local.get $kb)
                  (i32.add (local.get $y) (i32.add (i32.mul (local.get $t) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2))))
                  (i32.add (local.get $y) (i32.add (i32.mul (i32.add (local.get $t) (i32.const 1)) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2))))
                  (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 2)))
                  (local.get $acc))
                (local.set $t (i32.add (local.get $t) (i32.const 2)))
                (br $pairs)))
            (local.set $n (i32.add (local.get $n) (i32.const 4)))
            (br $quads)))
        ;; an odd last row, eight columns at a time, then the last quad
        (if (i32.and (i32.sub (local.get $tEnd) (local.get $t0)) (i32.const 1))
          (then
            (local.set $t (i32.sub (local.get $tEnd) (i32.const 1)))
            (local.set $n (local.get $n0))
            (block $octsDone
              (loop $octs
                (br_if $octsDone (i32.gt_s (i32.add (local.get $n) (i32.const 8)) (local.get $nQuadEnd)))
                (call $block1x8
                  (i32.add (local.get $x) (i32.mul (local.get $t) (local.get $kb)))
                  (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $kb)))
                  (local.get $kb)
                  (i32.add (local.get $y) (i32.add (i32.mul (local.get $t) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2))))
                  (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 2)))
                  (local.get $acc))
                (local.set $n (i32.add (local.get $n) (i32.const 8)))
                (br $octs)))
            (if (i32.lt_s (local.get $n) (local.get $nQuadEnd))
              (then
                (call $block1x4
                  (i32.add (local.get $x) (i32.mul (local.get $t) (local.get $kb)))
                  (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $kb)))
                  (local.get $kb)
                  (i32.add (local.get $y) (i32.add (i32.mul (local.get $t) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2))))
                  (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 2)))
                  (local.get $acc))))))
        ;; the last N % 4 columns, every row
        (local.set $n (local.get $nQuadEnd))
        (block $colsDone
          (loop $cols
            (br_if $colsDone (i32.ge_s (local.get $n) (local.get $n1)))
            (local.set $t (local.get $t0))
            (block $rowsDone
              (loop $singleRows
                (br_if $rowsDone (i32.ge_s (local.get $t) (local.get $tEnd)))
                (call $block1x1
                  (i32.add (local.get $x) (i32.mul (local.get $t) (local.get $kb)))
                  (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $kb)))
                  (local.get $kb)
                  (i32.add (local.get $y) (i32.add (i32.mul (local.get $t) (local.get $yRow)) (i32.shl (local.get $n) (i32.const 2))))
                  (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 2)))
                  (local.get $acc))
                (local.set $t (i32.add (local.get $t) (i32.const 1)))
                (br $singleRows)))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (br $cols)))
        (local.set $t0 (i32.add (local.get $t0) (i32.const 64)))
        (br $tiles))))

  ;; Attention, one (token, head) at a time. keys/values point at this layer's pool plus the
  ;; head's offset inside a block (the pool is [block][head][slot][hd], see kv-write.ts); table
  ;; at the sequence's block table; position j is row j % blockSize of block table[j / blockSize],
  ;; rows rowBytes apart, blocks blockSize * C floats apart. hd must be a multiple of 4.

  ;; scores[j] = scale * q . key(j) for j < length. One position's dot product is a chain of
  ;; dependent multiply-adds, so four positions go side by side to keep the multipliers busy;
  ;; each is still summed in the same order as a lone one, so the scores do not depend on it.
  (func $attnScores (param $q i32) (param $keys i32) (param $table i32) (param $length i32)
                              (param $blockSize i32) (param $rowBytes i32) (param $blockBytes i32) (param $hd i32) (param $scores i32) (param $scale f32)
    (local $j i32) (local $jEnd i32) (local $key i32) (local $d i32) (local $hb i32) (local $qd v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128) (local $out i32)
    (local.set $hb (i32.shl (local.get $hd) (i32.const 2)))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_s (local.get $j) (local.get $length)))
        (local.set $jEnd (select (local.get $length) (i32.add (local.get $j) (local.get $blockSize))
                                 (i32.lt_s (local.get $length) (i32.add (local.get $j) (local.get $blockSize)))))
        (local.set $key (i32.add (local.get $keys)
                          (i32.mul (i32.load (local.get $table)) (local.get $blockBytes))))
        (block $quadsDone
          (loop $quads
            (br_if $quadsDone (i32.gt_s (i32.add (local.get $j) (i32.const 4)) (local.get $jEnd)))
            (local.set $s0 (v128.const f32x4 0 0 0 0))
            (local.set $s1 (v128.const f32x4 0 0 0 0))
            (local.set $s2 (v128.const f32x4 0 0 0 0))
            (local.set $s3 (v128.const f32x4 0 0 0 0))
            (local.set $d (i32.const 0))
            (loop $dims4
              (local.set $qd (v128.load (i32.add (local.get $q) (local.get $d))))
              (local.set $s0 (f32x4.relaxed_madd (local.get $qd) (v128.load (i32.add (local.get $key) (local.get $d))) (local.get $s0)))
              (local.set $s1 (f32x4.relaxed_madd (local.get $qd)
                (v128.load (i32.add (i32.add (local.get $key) (local.get $rowBytes)) (local.get $d))) (local.get $s1)))
              (local.set $s2 (f32x4.relaxed_madd (local.get $qd)
                (v128.load (i32.add (i32.add (local.get $key) (i32.shl (local.get $rowBytes) (i32.const 1))) (local.get $d))) (local.get $s2)))
              (local.set $s3 (f32x4.relaxed_madd (local.get $qd)
                (v128.load (i32.add (i32.add (local.get $key) (i32.mul (local.get $rowBytes) (i32.const 3))) (local.get $d))) (local.get $s3)))
              (br_if $dims4 (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 16))) (local.get $hb))))
            (local.set $out (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2))))
            (f32.store offset=0 (local.get $out) (f32.mul (call $hsum (local.get $s0)) (local.get $scale)))
            (f32.store offset=4 (local.get $out) (f32.mul (call $hsum (local.get $s1)) (local.get $scale)))
            (f32.store offset=8 (local.get $out) (f32.mul (call $hsum (local.get $s2)) (local.get $scale)))
            (f32.store offset=12 (local.get $out) (f32.mul (call $hsum (local.get $s3)) (local.get $scale)))
            (local.set $key (i32.add (local.get $key) (i32.shl (local.get $rowBytes) (i32.const 2))))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $quads)))
        (block $singlesDone
          (loop $singles
            (br_if $singlesDone (i32.ge_s (local.get $j) (local.get $jEnd)))
            (local.set $s0 (v128.const f32x4 0 0 0 0))
            (local.set $d (i32.const 0))
            (loop $dims
              (local.set $s0 (f32x4.relaxed_madd
                (v128.load (i32.add (local.get $q) (local.get $d)))
                (v128.load (i32.add (local.get $key) (local.get $d)))
                (local.get $s0)))
              (br_if $dims (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 16))) (local.get $hb))))
            (f32.store (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2)))
              (f32.mul (call $hsum (local.get $s0)) (local.get $scale)))
            (local.set $key (i32.add (local.get $key) (local.get $rowBytes)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $singles)))
        (local.set $table (i32.add (local.get $table) (i32.const 4)))
        (br $blocks))))

  ;; out = scale * sum over j < length of weights[j] * value(j)
  (func $attnMix (param $weights i32) (param $values i32) (param $table i32) (param $length i32)
                           (param $blockSize i32) (param $rowBytes i32) (param $blockBytes i32) (param $hd i32) (param $out i32) (param $scale f32)
    (local $j i32) (local $jEnd i32) (local $value i32) (local $d i32) (local $hb i32) (local $p v128)
    (local.set $hb (i32.shl (local.get $hd) (i32.const 2)))
    (loop $zero
      (v128.store (i32.add (local.get $out) (local.get $d)) (v128.const f32x4 0 0 0 0))
      (br_if $zero (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 16))) (local.get $hb))))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_s (local.get $j) (local.get $length)))
        (local.set $jEnd (select (local.get $length) (i32.add (local.get $j) (local.get $blockSize))
                                 (i32.lt_s (local.get $length) (i32.add (local.get $j) (local.get $blockSize)))))
        (local.set $value (i32.add (local.get $values)
                            (i32.mul (i32.load (local.get $table)) (local.get $blockBytes))))
        (loop $positions
          (local.set $p (f32x4.splat (f32.load (i32.add (local.get $weights) (i32.shl (local.get $j) (i32.const 2))))))
          (local.set $d (i32.const 0))
          (loop $dims
            (v128.store (i32.add (local.get $out) (local.get $d))
              (f32x4.relaxed_madd (local.get $p)
                (v128.load (i32.add (local.get $value) (local.get $d)))
                (v128.load (i32.add (local.get $out) (local.get $d)))))
            (br_if $dims (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 16))) (local.get $hb))))
          (local.set $value (i32.add (local.get $value) (local.get $rowBytes)))
          (br_if $positions (i32.lt_s (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $jEnd))))
        (local.set $table (i32.add (local.get $table) (i32.const 4)))
        (br $blocks)))
    (local.set $p (f32x4.splat (local.get $scale)))
    (local.set $d (i32.const 0))
    (loop $rescale
      (v128.store (i32.add (local.get $out) (local.get $d))
        (f32x4.mul (local.get $p) (v128.load (i32.add (local.get $out) (local.get $d)))))
      (br_if $rescale (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 16))) (local.get $hb)))))

  ;; e^x, four lanes, to about 1 ulp: x = k ln2 + r with |r| <= ln2/2 (ln2 split in two so k ln2
  ;; is exact), e^r by a degree-7 polynomial (Cephes' expf), 2^k put straight into the exponent
  ;; bits. x is clamped to the range where e^x is a normal float.
  (func $expv (param $x v128) (result v128)
    (local $k v128) (local $r v128) (local $p v128)
    (local.set $x (f32x4.max (f32x4.min (local.get $x) (v128.const f32x4 88.3 88.3 88.3 88.3))
                             (v128.const f32x4 -87.3 -87.3 -87.3 -87.3)))
    (local.set $k (f32x4.nearest (f32x4.mul (local.get $x) (v128.const f32x4 1.44269504 1.44269504 1.44269504 1.44269504))))
    (local.set $r (f32x4.sub (f32x4.sub (local.get $x)
                    (f32x4.mul (local.get $k) (v128.const f32x4 0.693359375 0.693359375 0.693359375 0.693359375)))
                    (f32x4.mul (local.get $k) (v128.const f32x4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4))))
    (local.set $p (v128.const f32x4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (v128.const f32x4 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1)))
    (local.set $p (f32x4.add (f32x4.add (f32x4.mul (f32x4.mul (local.get $p) (local.get $r)) (local.get $r)) (local.get $r))
                             (v128.const f32x4 1 1 1 1)))
    (f32x4.mul (local.get $p)
      (i32x4.shl (i32x4.add (i32x4.trunc_sat_f32x4_s (local.get $k)) (v128.const i32x4 127 127 127 127)) (i32.const 23))))

  ;; GPT-2's GELU (tanh form) in place over columns [n0, n1) of a [rows, n] matrix, using
  ;; 0.5 v (1 + tanh u) = v / (1 + e^(-2u)). n0 and n1 are multiples of 4.
  (func (export "gelu") (param $y i32) (param $rows i32) (param $n i32) (param $n0 i32) (param $n1 i32)
    (local $t i32) (local $p i32) (local $end i32) (local $v v128) (local $u v128)
    (block $done
      (loop $rowLoop
        (br_if $done (i32.ge_s (local.get $t) (local.get $rows)))
        (local.set $p (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $t) (local.get $n)) (local.get $n0)) (i32.const 2))))
        (local.set $end (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $t) (local.get $n)) (local.get $n1)) (i32.const 2))))
        (block $rowDone
          (loop $cols
            (br_if $rowDone (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $v (v128.load (local.get $p)))
            ;; -2u = -2 sqrt(2/pi) (v + 0.044715 v^3)
            (local.set $u (f32x4.mul (v128.const f32x4 -1.5957691216 -1.5957691216 -1.5957691216 -1.5957691216)
                            (f32x4.add (local.get $v)
                              (f32x4.mul (v128.const f32x4 0.044715 0.044715 0.044715 0.044715)
                                (f32x4.mul (local.get $v) (f32x4.mul (local.get $v) (local.get $v)))))))
            (v128.store (local.get $p)
              (f32x4.div (local.get $v) (f32x4.add (v128.const f32x4 1 1 1 1) (call $expv (local.get $u)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br $cols)))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $rowLoop))))

  ;; scores[j] = e^(scores[j] - max) for j < length; returns their sum.
  (func $softmaxExp (export "softmaxExp") (param $s i32) (param $length i32) (result f32)
    (local $p i32) (local $end i32) (local $vecEnd i32) (local $max f32) (local $maxv v128) (local $sum v128) (local $e v128)
    (local.set $end (i32.add (local.get $s) (i32.shl (local.get $length) (i32.const 2))))
    (local.set $vecEnd (i32.add (local.get $s) (i32.shl (i32.and (local.get $length) (i32.const -4)) (i32.const 2))))
    (local.set $max (f32.const -inf))
    (local.set $p (local.get $s))
    (block $maxDone
      (loop $maxLoop
        (br_if $maxDone (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $max (f32.max (local.get $max) (f32.load (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $maxLoop)))
    (local.set $maxv (f32x4.splat (local.get $max)))
    (local.set $p (local.get $s))
    (block $vecDone
      (loop $vecLoop
        (br_if $vecDone (i32.ge_u (local.get $p) (local.get $vecEnd)))
        (local.set $e (call $expv (f32x4.sub (v128.load (local.get $p)) (local.get $maxv))))
        (v128.store (local.get $p) (local.get $e))
        (local.set $sum (f32x4.add (local.get $sum) (local.get $e)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vecLoop)))
    (block $tailDone
      (loop $tailLoop
        (br_if $tailDone (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $e (call $expv (f32x4.splat (f32.sub (f32.load (local.get $p)) (local.get $max)))))
        (f32.store (local.get $p) (f32x4.extract_lane 0 (local.get $e)))
        (local.set $sum (f32x4.add (local.get $sum)
          (f32x4.replace_lane 1 (f32x4.replace_lane 2 (f32x4.replace_lane 3 (local.get $e) (f32.const 0)) (f32.const 0)) (f32.const 0))))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $tailLoop)))
    (call $hsum (local.get $sum)))

  ;; Causal attention for (token, head) items [first, end): item = token * nHead + head (see
  ;; attention.ts, which does the same in JS). kPool/vPool point at this layer's pools;
  ;; tokenSeq, positions and blockTables are i32 arrays; scores is this thread's [nCtx] scratch.
  (func (export "attention") (param $qkv i32) (param $kPool i32) (param $vPool i32) (param $out i32)
                             (param $first i32) (param $end i32) (param $tokenSeq i32) (param $positions i32) (param $blockTables i32)
                             (param $maxBlocksPerSeq i32) (param $blockSize i32) (param $c i32) (param $nHead i32) (param $scores i32)
    (local $hd i32) (local $item i32) (local $t i32) (local $h i32)
    (local $table i32) (local $length i32) (local $headBytes i32) (local $blockBytes i32) (local $scale f32) (local $sum f32)
    (local.set $blockBytes (i32.mul (i32.shl (local.get $c) (i32.const 2)) (local.get $blockSize)))
    (local.set $hd (i32.div_u (local.get $c) (local.get $nHead)))
    (local.set $scale (f32.div (f32.const 1) (f32.sqrt (f32.convert_i32_u (local.get $hd)))))
    (local.set $item (local.get $first))
    (block $done
      (loop $each
        (br_if $done (i32.ge_s (local.get $item) (local.get $end)))
        (local.set $t (i32.div_u (local.get $item) (local.get $nHead)))
        (local.set $h (i32.sub (local.get $item) (i32.mul (local.get $t) (local.get $nHead))))
        (local.set $headBytes (i32.shl (i32.mul (local.get $h) (local.get $hd)) (i32.const 2)))
        (local.set $table (i32.add (local.get $blockTables)
          (i32.shl (i32.mul (i32.load (i32.add (local.get $tokenSeq) (i32.shl (local.get $t) (i32.const 2)))) (local.get $maxBlocksPerSeq)) (i32.const 2))))
        (local.set $length (i32.add (i32.load (i32.add (local.get $positions) (i32.shl (local.get $t) (i32.const 2)))) (i32.const 1)))
        (call $attnScores
          (i32.add (local.get $qkv) (i32.add (i32.shl (i32.mul (i32.mul (local.get $t) (i32.const 3)) (local.get $c)) (i32.const 2)) (local.get $headBytes)))
          (i32.add (local.get $kPool) (i32.mul (local.get $headBytes) (local.get $blockSize)))
          (local.get $table) (local.get $length) (local.get $blockSize) (i32.shl (local.get $hd) (i32.const 2)) (local.get $blockBytes) (local.get $hd)
          (local.get $scores) (local.get $scale))
        (local.set $sum (call $softmaxExp (local.get $scores) (local.get $length)))
        (call $attnMix
          (local.get $scores)
          (i32.add (local.get $vPool) (i32.mul (local.get $headBytes) (local.get $blockSize)))
          (local.get $table) (local.get $length) (local.get $blockSize) (i32.shl (local.get $hd) (i32.const 2)) (local.get $blockBytes) (local.get $hd)
          (i32.add (local.get $out) (i32.add (i32.shl (i32.mul (local.get $t) (local.get $c)) (i32.const 2)) (local.get $headBytes)))
          (f32.div (f32.const 1) (local.get $sum)))
        (local.set $item (i32.add (local.get $item) (i32.const 1)))
        (br $each))))

  ;; Index of the largest of n floats, the lowest index on ties: greedy sampling over the vocab.
  (func (export "argmax") (param $p i32) (param $n i32) (result i32)
    (local $q i32) (local $end i32) (local $vecEnd i32) (local $maxv v128) (local $max f32)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $vecEnd (i32.add (local.get $p) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (local.set $maxv (v128.const f32x4 -inf -inf -inf -inf))
    (local.set $q (local.get $p))
    (block $vecDone
      (loop $vec
        (br_if $vecDone (i32.ge_u (local.get $q) (local.get $vecEnd)))
        (local.set $maxv (f32x4.pmax (local.get $maxv) (v128.load (local.get $q))))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br $vec)))
    (local.set $max (f32.max
      (f32.max (f32x4.extract_lane 0 (local.get $maxv)) (f32x4.extract_lane 1 (local.get $maxv)))
      (f32.max (f32x4.extract_lane 2 (local.get $maxv)) (f32x4.extract_lane 3 (local.get $maxv)))))
    (block $tailDone
      (loop $tail
        (br_if $tailDone (i32.ge_u (local.get $q) (local.get $end)))
        (if (f32.gt (f32.load (local.get $q)) (local.get $max)) (then (local.set $max (f32.load (local.get $q)))))
        (local.set $q (i32.add (local.get $q) (i32.const 4)))
        (br $tail)))
    (local.set $q (local.get $p))
    (block $found
      (loop $scan
        (br_if $found (i32.ge_u (local.get $q) (local.get $end)))
        (br_if $found (f32.eq (f32.load (local.get $q)) (local.get $max)))
        (local.set $q (i32.add (local.get $q) (i32.const 4)))
        (br $scan)))
    ;; all NaN: fall back to index 0, as the JS version does
    (if (result i32) (i32.ge_u (local.get $q) (local.get $end))
      (then (i32.const 0))
      (else (i32.shr_u (i32.sub (local.get $q) (local.get $p)) (i32.const 2)))))

  ;; dst[i] = e^((src[i] - max) / temperature) for i < n, max the largest src: a row of logits'
  ;; sampling weights (unnormalised). Where the exponent is below -87.3 (e^x no longer a normal
  ;; float) the weight is 0, so a token masked with -inf is never drawn.
  (func (export "expRow") (param $src i32) (param $n i32) (param $temperature f32) (param $dst i32)
    (local $q i32) (local $o i32) (local $end i32) (local $vecEnd i32) (local $maxv v128) (local $max f32)
    (local $x v128) (local $t v128)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $vecEnd (i32.add (local.get $src) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (local.set $maxv (v128.const f32x4 -inf -inf -inf -inf))
    (local.set $q (local.get $src))
    (block $maxVecDone
      (loop $maxVec
        (br_if $maxVecDone (i32.ge_u (local.get $q) (local.get $vecEnd)))
        (local.set $maxv (f32x4.pmax (local.get $maxv) (v128.load (local.get $q))))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br $maxVec)))
    (local.set $max (f32.max
      (f32.max (f32x4.extract_lane 0 (local.get $maxv)) (f32x4.extract_lane 1 (local.get $maxv)))
      (f32.max (f32x4.extract_lane 2 (local.get $maxv)) (f32x4.extract_lane 3 (local.get $maxv)))))
    (block $maxTailDone
      (loop $maxTail
        (br_if $maxTailDone (i32.ge_u (local.get $q) (local.get $end)))
        (if (f32.gt (f32.load (local.get $q)) (local.get $max)) (then (local.set $max (f32.load (local.get $q)))))
        (local.set $q (i32.add (local.get $q) (i32.const 4)))
        (br $maxTail)))
    (local.set $maxv (f32x4.splat (local.get $max)))
    (local.set $t (f32x4.splat (local.get $temperature)))
    (local.set $q (local.get $src))
    (local.set $o (local.get $dst))
    (block $vecDone
      (loop $vec
        (br_if $vecDone (i32.ge_u (local.get $q) (local.get $vecEnd)))
        (local.set $x (f32x4.div (f32x4.sub (v128.load (local.get $q)) (local.get $maxv)) (local.get $t)))
        (v128.store (local.get $o)
          (v128.andnot (call $expv (local.get $x)) (f32x4.lt (local.get $x) (v128.const f32x4 -87.3 -87.3 -87.3 -87.3))))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $vec)))
    (block $tailDone
      (loop $tail
        (br_if $tailDone (i32.ge_u (local.get $q) (local.get $end)))
        (local.set $x (f32x4.splat (f32.div (f32.sub (f32.load (local.get $q)) (local.get $max)) (local.get $temperature))))
        (f32.store (local.get $o) (f32x4.extract_lane 0
          (v128.andnot (call $expv (local.get $x)) (f32x4.lt (local.get $x) (v128.const f32x4 -87.3 -87.3 -87.3 -87.3)))))
        (local.set $q (i32.add (local.get $q) (i32.const 4)))
        (local.set $o (i32.add (local.get $o) (i32.const 4)))
        (br $tail))))
)
