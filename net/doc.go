// Package net is the policy/value network: a residual convolutional
// network over the 11x11 board ([Network], [Config]), its training
// ([Trainer]), its files (safetensors, ONNX export) and its inference as
// an mcts.Evaluator ([Inference]), batched, on every core, allocation-free
// in steady state, on kernels of its own ([taflab/net/kernels]).
//
// Inference runs in a [Precision]: float32 everywhere, or bfloat16 or int8
// where the CPU has AMX ([Auto] picks; [Precision.Native] tells what this
// CPU runs on its own instructions). Training is float32, or mixed with
// its 3x3 convolutions in bfloat16 ([TrainConfig].Precision).
//
//	n, _, err := net.Load("networks/copenhagen.safetensors")
//	if err != nil { ... }
//	in := n.NewInferenceAt(1, "net-"+n.Hash(), net.Auto) // bf16 on AMX, else float32
//	err = in.Evaluate(batch)                               // batch: an mcts.Batch of positions
//
// The commands set the precision of every inference they make with
// -precision (SetDefaultPrecision; NewInference takes it).
package net
