package kernels_test

import (
	"fmt"

	"taflab/net/kernels"
)

func ExampleGemm() {
	a := []float32{1, 2, 3, 4, 5, 6}    // 2×3
	b := []float32{7, 8, 9, 10, 11, 12} // 3×2
	c := make([]float32, 4)             // 2×2
	kernels.Gemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c)

	// Cᵀ-style use: C = Aᵀ·A (3×3), accumulated onto C with beta = 1.
	g := make([]float32, 9)
	kernels.Gemm(true, false, 3, 3, 2, 1, a, 3, a, 3, 1, g, 3)
	fmt.Println(g)
	// Output:
	// [58 64 139 154]
	// [17 22 27 22 29 36 27 36 45]
}

func ExampleSetImplementation() {
	// Force the portable path, e.g. to compare it with the default.
	if err := kernels.SetImplementation("generic"); err != nil {
		fmt.Println(err)
	}
	fmt.Println(kernels.Implementation())
	_ = kernels.SetImplementation("") // back to the best available
	// Output: generic
}
