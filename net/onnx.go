package net

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The ONNX export writes the protobuf messages of onnx.proto by hand, only
// the fields it needs; the field numbers are those of onnx/onnx.proto.
const (
	// ONNXOpset is the opset of the default domain the exported model
	// imports.
	ONNXOpset = 13
	// ONNXIRVersion is the IR version of the exported model: 8, the newest
	// that ONNX 1.12's checker accepts.
	ONNXIRVersion = 8
)

// Field numbers of onnx.proto.
const (
	modelIRVersion     = 1  // ModelProto.ir_version: int64
	modelProducerName  = 2  // ModelProto.producer_name: string
	modelDocString     = 6  // ModelProto.doc_string: string
	modelGraph         = 7  // ModelProto.graph: GraphProto
	modelOpsetImport   = 8  // ModelProto.opset_import: OperatorSetIdProto
	modelMetadataProps = 14 // ModelProto.metadata_props: StringStringEntryProto

	opsetDomain  = 1 // OperatorSetIdProto.domain: string
	opsetVersion = 2 // OperatorSetIdProto.version: int64

	entryKey   = 1 // StringStringEntryProto.key
	entryValue = 2 // StringStringEntryProto.value

	graphNode        = 1  // GraphProto.node: NodeProto
	graphName        = 2  // GraphProto.name: string
	graphInitializer = 5  // GraphProto.initializer: TensorProto
	graphInput       = 11 // GraphProto.input: ValueInfoProto
	graphOutput      = 12 // GraphProto.output: ValueInfoProto

	nodeInput     = 1 // NodeProto.input: string
	nodeOutput    = 2 // NodeProto.output: string
	nodeName      = 3 // NodeProto.name: string
	nodeOpType    = 4 // NodeProto.op_type: string
	nodeAttribute = 5 // NodeProto.attribute: AttributeProto

	attrName = 1  // AttributeProto.name: string
	attrI    = 3  // AttributeProto.i: int64
	attrInts = 8  // AttributeProto.ints: int64 (repeated)
	attrType = 20 // AttributeProto.type: AttributeType

	attrTypeInt  = 2 // AttributeProto.INT
	attrTypeInts = 7 // AttributeProto.INTS

	tensorDims     = 1 // TensorProto.dims: int64 (repeated)
	tensorDataType = 2 // TensorProto.data_type: int32
	tensorName     = 8 // TensorProto.name: string
	tensorRawData  = 9 // TensorProto.raw_data: bytes

	dataTypeFloat = 1 // TensorProto.FLOAT
	dataTypeInt64 = 7 // TensorProto.INT64

	valueInfoName = 1 // ValueInfoProto.name: string
	valueInfoType = 2 // ValueInfoProto.type: TypeProto

	typeTensorType  = 1 // TypeProto.tensor_type: TypeProto.Tensor
	typeTensorElem  = 1 // TypeProto.Tensor.elem_type: int32
	typeTensorShape = 2 // TypeProto.Tensor.shape: TensorShapeProto

	shapeDim       = 1 // TensorShapeProto.dim: Dimension
	dimValue       = 1 // TensorShapeProto.Dimension.dim_value: int64
	dimParam       = 2 // TensorShapeProto.Dimension.dim_param: string
	onnxBatchParam = "batch"
)

// ExportONNX writes the inference network (batch norms folded into the
// convolutions) as an ONNX model (IR version 8, opset 13) to path, whole or
// not at all.
//
// Input "planes": float32 [batch, 15, 11, 11], NCHW: channel = the input
// plane of Encode, H = rank (0 is rank 1), W = file. Outputs "policy":
// float32 [batch, 4840], the raw logits in the order of MoveIndex
// (square*40 + direction*10 + distance-1), and "wdl": float32 [batch, 3],
// the win/draw/loss probabilities of the side to move.
//
// The model's metadata_props carry taflab.format ("taflab-onnx"),
// taflab.config, taflab.input_encoding, taflab.policy_size, taflab.hash and,
// when the network has a PlanesOf, taflab.planes_of: the rule set whose
// planes a caller must encode, whatever rule set is played.
func (n *Network) ExportONNX(path string) error {
	data, err := n.encodeONNX()
	if err != nil {
		return fmt.Errorf("net: %s: %w", path, err)
	}
	return writeFile(path, data)
}

// onnxGraph collects a graph's nodes and initializers.
type onnxGraph struct {
	nodes, inits [][]byte
	count        map[string]int
}

// node adds a node and returns its output's name.
func (g *onnxGraph) node(op string, inputs []string, output string, attrs ...[]byte) string {
	g.count[op]++
	var b []byte
	for _, in := range inputs {
		b = appendString(b, nodeInput, in)
	}
	b = appendString(b, nodeOutput, output)
	b = appendString(b, nodeName, fmt.Sprintf("%s_%d", op, g.count[op]))
	b = appendString(b, nodeOpType, op)
	for _, a := range attrs {
		b = appendMessage(b, nodeAttribute, a)
	}
	g.nodes = append(g.nodes, b)
	return output
}

// floats adds a float initializer and returns its name.
func (g *onnxGraph) floats(name string, dims []int, v []float32) string {
	var raw []byte
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	g.inits = append(g.inits, tensorProto(name, dataTypeFloat, dims, raw))
	return name
}

// int64s adds an int64 initializer and returns its name.
func (g *onnxGraph) int64s(name string, v []int64) string {
	var raw []byte
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(x))
	}
	g.inits = append(g.inits, tensorProto(name, dataTypeInt64, []int{len(v)}, raw))
	return name
}

// conv adds a convolution (same padding, stride 1) with weights w in the
// network's HWIO layout ([k][k][cin][cout]) and bias b, and returns its
// output.
func (g *onnxGraph) conv(prefix, x string, k, cin, cout int, w, b []float32) string {
	oihw := make([]float32, len(w))
	for ky := range k {
		for kx := range k {
			for c := range cin {
				for o := range cout {
					oihw[((o*cin+c)*k+ky)*k+kx] = w[((ky*k+kx)*cin+c)*cout+o]
				}
			}
		}
	}
	wName := g.floats(prefix+".weight", []int{cout, cin, k, k}, oihw)
	bName := g.floats(prefix+".bias", []int{cout}, b)
	p := int64(k / 2)
	return g.node("Conv", []string{x, wName, bName}, prefix+".conv",
		intsAttr("kernel_shape", int64(k), int64(k)), intsAttr("pads", p, p, p, p), intsAttr("strides", 1, 1))
}

func (g *onnxGraph) folded(prefix, x string, f foldedConv) string {
	return g.conv(prefix, x, f.k, f.cin, f.cout, f.w, f.b)
}

func (n *Network) encodeONNX() ([]byte, error) {
	g := &onnxGraph{count: map[string]int{}}
	c, vc := n.cfg.Channels, n.cfg.ValueChannels

	h := g.node("Relu", []string{g.folded("stem", "planes", fold(&n.stem))}, "stem.out")
	for i := range n.blocks {
		p := fmt.Sprintf("blocks.%d", i)
		a := g.node("Relu", []string{g.folded(p+".a", h, fold(&n.blocks[i].a))}, p+".a.out")
		b := g.folded(p+".b", a, fold(&n.blocks[i].b))
		sum := g.node("Add", []string{b, h}, p+".sum")
		h = g.node("Relu", []string{sum}, p+".out")
	}

	pol := g.node("Relu", []string{g.folded("policy", h, fold(&n.polConv))}, "policy.hidden")
	pol = g.conv("policy.out", pol, 1, c, MovesPerSquare, n.polOut.w, n.polOut.b)
	pol = g.node("Transpose", []string{pol}, "policy.nhwc", intsAttr("perm", 0, 2, 3, 1))
	g.node("Reshape", []string{pol, g.int64s("policy.shape", []int64{0, PolicySize})}, "policy")

	v := g.node("Relu", []string{g.folded("value", h, fold(&n.valConv))}, "value.hidden")
	v = g.node("Transpose", []string{v}, "value.nhwc", intsAttr("perm", 0, 2, 3, 1))
	v = g.node("Reshape", []string{v, g.int64s("value.shape", []int64{0, int64(Squares * vc)})}, "value.flat")
	fc1 := g.floats("value.fc1.weight", []int{n.valFC1.in, n.valFC1.out}, n.valFC1.w)
	fc1b := g.floats("value.fc1.bias", []int{n.valFC1.out}, n.valFC1.b)
	v = g.node("Gemm", []string{v, fc1, fc1b}, "value.fc1")
	v = g.node("Relu", []string{v}, "value.fc1.relu")
	fc2 := g.floats("value.fc2.weight", []int{n.valFC2.in, n.valFC2.out}, n.valFC2.w)
	fc2b := g.floats("value.fc2.bias", []int{n.valFC2.out}, n.valFC2.b)
	v = g.node("Gemm", []string{v, fc2, fc2b}, "value.logits")
	g.node("Softmax", []string{v}, "wdl", intAttr("axis", 1))

	var graph []byte
	for _, nd := range g.nodes {
		graph = appendMessage(graph, graphNode, nd)
	}
	graph = appendString(graph, graphName, "taflab")
	for _, t := range g.inits {
		graph = appendMessage(graph, graphInitializer, t)
	}
	graph = appendMessage(graph, graphInput, valueInfo("planes", InputPlanes, BoardSize, BoardSize))
	graph = appendMessage(graph, graphOutput, valueInfo("policy", PolicySize))
	graph = appendMessage(graph, graphOutput, valueInfo("wdl", 3))

	cfg, err := json.Marshal(n.cfg)
	if err != nil {
		return nil, err
	}
	var m []byte
	m = protowire.AppendTag(m, modelIRVersion, protowire.VarintType)
	m = protowire.AppendVarint(m, ONNXIRVersion)
	m = appendString(m, modelProducerName, "taflab")
	m = appendString(m, modelDocString, "taflab hnefatafl policy/value network. Input planes [batch,15,11,11] (NCHW; "+
		"channel = input plane of "+InputEncoding+", H = rank from rank 1, W = file). Outputs policy [batch,4840] "+
		"(logits, index = square*40 + direction*10 + distance-1, square = rank*11+file, directions N,S,E,W) and "+
		"wdl [batch,3] (win/draw/loss probabilities of the side to move).")
	m = appendMessage(m, modelGraph, graph)
	var opset []byte
	opset = appendString(opset, opsetDomain, "")
	opset = protowire.AppendTag(opset, opsetVersion, protowire.VarintType)
	opset = protowire.AppendVarint(opset, ONNXOpset)
	m = appendMessage(m, modelOpsetImport, opset)
	meta := [][2]string{
		{MetaFormat, "taflab-onnx"},
		{MetaConfig, string(cfg)},
		{MetaInputEncoding, InputEncoding},
		{MetaPolicySize, fmt.Sprint(PolicySize)},
		{"taflab.hash", n.Hash()},
	}
	planes, err := n.planesOfMeta()
	if err != nil {
		return nil, err
	}
	if planes != "" {
		meta = append(meta, [2]string{MetaPlanesOf, planes})
	}
	for _, kv := range meta {
		var e []byte
		e = appendString(e, entryKey, kv[0])
		e = appendString(e, entryValue, kv[1])
		m = appendMessage(m, modelMetadataProps, e)
	}
	return m, nil
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

// appendInt64 appends one element of an int64 field, unpacked (the proto2
// default for onnx.proto's repeated fields).
func appendInt64(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func intAttr(name string, v int64) []byte {
	a := appendString(nil, attrName, name)
	a = appendInt64(a, attrI, v)
	return appendInt64(a, attrType, attrTypeInt)
}

func intsAttr(name string, v ...int64) []byte {
	a := appendString(nil, attrName, name)
	for _, x := range v {
		a = appendInt64(a, attrInts, x)
	}
	return appendInt64(a, attrType, attrTypeInts)
}

func tensorProto(name string, dataType int64, dims []int, raw []byte) []byte {
	var t []byte
	for _, d := range dims {
		t = appendInt64(t, tensorDims, int64(d))
	}
	t = appendInt64(t, tensorDataType, dataType)
	t = appendString(t, tensorName, name)
	t = protowire.AppendTag(t, tensorRawData, protowire.BytesType)
	return protowire.AppendBytes(t, raw)
}

// valueInfo describes a float tensor [batch, dims...].
func valueInfo(name string, dims ...int) []byte {
	var shape []byte
	shape = appendMessage(shape, shapeDim, appendString(nil, dimParam, onnxBatchParam))
	for _, d := range dims {
		shape = appendMessage(shape, shapeDim, appendInt64(nil, dimValue, int64(d)))
	}
	var tt []byte
	tt = appendInt64(tt, typeTensorElem, dataTypeFloat)
	tt = appendMessage(tt, typeTensorShape, shape)
	vi := appendString(nil, valueInfoName, name)
	return appendMessage(vi, valueInfoType, appendMessage(nil, typeTensorType, tt))
}
