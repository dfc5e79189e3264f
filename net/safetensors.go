package net

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"taflab/configs/variants"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
	"taflab/rules"
)

// Network files are safetensors files (https://github.com/huggingface/safetensors):
// an 8-byte little-endian header length, a JSON header naming each tensor's
// dtype, shape and byte range, with string metadata under "__metadata__",
// then the tensors' raw little-endian bytes. Only F32 tensors are written
// and read.

// Metadata keys of a network file, written by Save and checked by Load.
const (
	// MetaFormat is "taflab-network" in a network file.
	MetaFormat = "taflab.format"
	// MetaFormatVersion is the version of the network file layout: "1".
	MetaFormatVersion = "taflab.format_version"
	// MetaConfig is the JSON of the network's Config.
	MetaConfig = "taflab.config"
	// MetaInputEncoding is the InputEncoding the network was trained with.
	MetaInputEncoding = "taflab.input_encoding"
	// MetaPolicySize is the number of policy logits, in decimal.
	MetaPolicySize = "taflab.policy_size"
	// MetaPlanesOf is the JSON of the rules.Definition of the one rule set
	// whose planes the network learnt from (Network.PlanesOf), absent when
	// it learnt from several or it is not known. Optional.
	MetaPlanesOf = "taflab.planes_of"
)

const (
	networkFormat        = "taflab-network"
	networkFormatVersion = "1"
	// maxHeaderSize bounds a safetensors header, as the reference
	// implementation does (100 MB).
	maxHeaderSize = 100_000_000
	metadataKey   = "__metadata__"
)

// WriteSafetensors writes tensors (in the given order) and the string
// metadata meta to a safetensors file at path, whole or not at all: it
// writes a temporary file beside path, syncs it and renames it over path.
// It refuses tensors whose data do not match their shape, empty or
// repeated names, and the name "__metadata__".
func WriteSafetensors(path string, tensors []Tensor, meta map[string]string) error {
	data, err := encodeSafetensors(tensors, meta)
	if err != nil {
		return errctx.Errorf("net", "%s: %w", path, err)
	}
	return writeFile(path, data)
}

// encodeSafetensors returns the bytes of a safetensors file. The header is
// padded with spaces so that the data start at a multiple of 8 bytes.
func encodeSafetensors(tensors []Tensor, meta map[string]string) ([]byte, error) {
	var h bytes.Buffer
	h.WriteByte('{')
	if len(meta) > 0 {
		m, err := json.Marshal(meta) // keys sorted
		if err != nil {
			return nil, err
		}
		h.WriteString(`"` + metadataKey + `":`)
		h.Write(m)
	}
	seen := make(map[string]bool, len(tensors))
	offset := 0
	for i, t := range tensors {
		switch {
		case t.Name == "":
			return nil, fmt.Errorf("tensor %d has no name", i)
		case t.Name == metadataKey:
			return nil, fmt.Errorf("tensor %d: the name %q is reserved", i, t.Name)
		case seen[t.Name]:
			return nil, fmt.Errorf("two tensors are named %q", t.Name)
		}
		seen[t.Name] = true
		size := 1
		for _, d := range t.Shape {
			if d < 0 {
				return nil, fmt.Errorf("tensor %q: shape %v has a negative dimension", t.Name, t.Shape)
			}
			size *= d
		}
		if size != len(t.Data) {
			return nil, fmt.Errorf("tensor %q: shape %v holds %d values, the data %d", t.Name, t.Shape, size, len(t.Data))
		}
		name, err := json.Marshal(t.Name)
		if err != nil {
			return nil, err
		}
		if h.Len() > 1 {
			h.WriteByte(',')
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		s, _ := json.Marshal(shape)
		fmt.Fprintf(&h, `%s:{"dtype":"F32","shape":%s,"data_offsets":[%d,%d]}`, name, s, offset, offset+4*size)
		offset += 4 * size
	}
	h.WriteByte('}')
	for (8+h.Len())%8 != 0 {
		h.WriteByte(' ')
	}
	if h.Len() > maxHeaderSize {
		return nil, fmt.Errorf("the header would be %d bytes, more than %d", h.Len(), maxHeaderSize)
	}
	out := make([]byte, 8, 8+h.Len()+offset)
	binary.LittleEndian.PutUint64(out, uint64(h.Len()))
	out = append(out, h.Bytes()...)
	for _, t := range tensors {
		for _, v := range t.Data {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
	}
	return out, nil
}

// writeFile writes data to path whole or not at all (fileio.WriteFile:
// a temporary file beside path, synced and renamed over it), the error
// naming path.
func writeFile(path string, data []byte) error {
	if err := fileio.WriteFile(path, data); err != nil {
		return errctx.Errorf("net", "%w", err)
	}
	return nil
}

// ReadSafetensors reads a safetensors file: its tensors in the header's
// order (Name, Shape and Data set) and its metadata (empty if it has none).
// It checks the whole file: a sane header length within the file, valid
// UTF-8 JSON, dtype F32 only, non-negative shapes, byte ranges that match
// the shapes and tile the data exactly (no gap, overlap, truncation or
// trailing bytes), and reads no more than MaxSafetensorsBytes of it.
// Errors read "net: FILE: what is wrong".
func ReadSafetensors(path string) ([]Tensor, map[string]string, error) {
	f, err := fileio.Open(path)
	if errors.Is(err, fileio.ErrNotRegular) {
		return nil, nil, errctx.Errorf("net", "%w", err) // it names the file
	}
	if err != nil {
		return nil, nil, errctx.Errorf("net", "%s: %w", path, errors.Unwrap(err)) // os.Open's *fs.PathError, whose path is named
	}
	defer f.Close()
	b, err := fileio.ReadLimit(path, f, MaxSafetensorsBytes, "a network file")
	if err != nil {
		return nil, nil, errctx.Errorf("net", "%w", err)
	}
	return ReadSafetensorsBytes(path, b)
}

// MaxSafetensorsBytes is the largest safetensors file read: 1 GiB, some
// 500 times the shipped network and more than a 20-block, 256-channel one.
const MaxSafetensorsBytes = 1 << 30

// ReadSafetensorsBytes is ReadSafetensors of a file's contents b; name
// stands for the file in errors. The tensors do not share memory with b.
func ReadSafetensorsBytes(name string, b []byte) ([]Tensor, map[string]string, error) {
	tensors, meta, err := parseSafetensors(b)
	if err != nil {
		return nil, nil, errctx.Errorf("net", "%s: %w", name, err)
	}
	return tensors, meta, nil
}

type tensorEntry struct {
	Dtype       *string   `json:"dtype"`
	Shape       *[]int    `json:"shape"`
	DataOffsets *[]uint64 `json:"data_offsets"`
}

func parseSafetensors(b []byte) ([]Tensor, map[string]string, error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("not a safetensors file: %d bytes, less than the 8 of the header length", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	switch {
	case n < 2:
		return nil, nil, fmt.Errorf("header length %d: too short for a JSON object", n)
	case n > maxHeaderSize:
		return nil, nil, fmt.Errorf("header length %d: more than %d (not a safetensors file?)", n, maxHeaderSize)
	case n > uint64(len(b)-8):
		return nil, nil, fmt.Errorf("header length %d: the file has only %d bytes after it (truncated?)", n, len(b)-8)
	}
	header, data := b[8:8+n], b[8+n:]
	if !utf8.Valid(header) {
		return nil, nil, errors.New("the header is not valid UTF-8")
	}
	if header[0] != '{' {
		return nil, nil, errors.New("the header is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.DisallowUnknownFields()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("the header is not a JSON object")
	}
	meta := map[string]string{}
	var tensors []Tensor
	var offsets [][2]uint64
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("header: %s", jsonProblem(err))
		}
		key, ok := tok.(string)
		if !ok {
			return nil, nil, errors.New("header: invalid JSON")
		}
		if seen[key] {
			return nil, nil, fmt.Errorf("header: %q appears twice", key)
		}
		seen[key] = true
		if key == metadataKey {
			var m map[string]string
			if err := dec.Decode(&m); err != nil {
				return nil, nil, fmt.Errorf("header: %s is not an object of strings", metadataKey)
			}
			for k, v := range m {
				meta[k] = v
			}
			continue
		}
		var e tensorEntry
		if err := dec.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("header: tensor %q: %s", key, jsonProblem(err))
		}
		t, off, err := checkEntry(key, &e, len(data))
		if err != nil {
			return nil, nil, err
		}
		tensors = append(tensors, t)
		offsets = append(offsets, off)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, nil, errors.New("header: invalid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("header: bytes after the JSON object")
	}

	// The byte ranges, in order, must tile the data exactly.
	order := make([]int, len(tensors))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := offsets[order[i]], offsets[order[j]]
		return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
	})
	var end uint64
	for _, i := range order {
		off := offsets[i]
		if off[0] < end {
			return nil, nil, fmt.Errorf("tensor %q: bytes %d to %d overlap another tensor's", tensors[i].Name, off[0], off[1])
		}
		if off[0] > end {
			return nil, nil, fmt.Errorf("tensor %q starts at byte %d, the previous tensor ends at %d: a gap", tensors[i].Name, off[0], end)
		}
		end = off[1]
	}
	if end != uint64(len(data)) {
		return nil, nil, fmt.Errorf("the tensors hold %d bytes, the file %d after the header: %d bytes of trailing garbage", end, len(data), uint64(len(data))-end)
	}
	// Only now, with the ranges known to tile the file, allocate: a header
	// of many tensors claiming the same bytes allocates nothing.
	for i := range tensors {
		raw := data[offsets[i][0]:offsets[i][1]]
		d := make([]float32, len(raw)/4)
		tensors[i].Data = d
		for j := range d {
			d[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
	}
	return tensors, meta, nil
}

// jsonProblem describes a decoding error of the header without Go's type
// names.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("invalid %s: a JSON %s", te.Field, te.Value)
		}
		return fmt.Sprintf("a JSON %s where an object belongs", te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "invalid JSON"
	}
	return strings.TrimPrefix(err.Error(), "json: ") // an unknown field
}

// messages is the text of Validate's errors (errors.Join's) without the
// package's name, "; " between them.
func messages(err error) string {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	texts := make([]string, len(errs))
	for i, e := range errs {
		texts[i] = errctx.Message(e)
	}
	return strings.Join(texts, "; ")
}

// checkEntry checks one tensor of the header against the data's length and
// returns it (without its data) and its byte range.
func checkEntry(name string, e *tensorEntry, dataLen int) (Tensor, [2]uint64, error) {
	fail := func(format string, args ...any) (Tensor, [2]uint64, error) {
		return Tensor{}, [2]uint64{}, fmt.Errorf("tensor %q: "+format, append([]any{name}, args...)...)
	}
	switch {
	case name == "":
		return fail("an empty name")
	case e.Dtype == nil:
		return fail("no dtype")
	case *e.Dtype != "F32":
		return fail("dtype %q: only F32 is read", *e.Dtype)
	case e.Shape == nil:
		return fail("no shape")
	case e.DataOffsets == nil:
		return fail("no data_offsets")
	case len(*e.DataOffsets) != 2:
		return fail("data_offsets %v: want [begin, end]", *e.DataOffsets)
	}
	off := [2]uint64{(*e.DataOffsets)[0], (*e.DataOffsets)[1]}
	if off[0] > off[1] {
		return fail("data_offsets %v: begin after end", off)
	}
	if off[1] > uint64(dataLen) {
		return fail("data_offsets %v: beyond the %d bytes of data (truncated?)", off, dataLen)
	}
	shape := *e.Shape
	size, overflow := uint64(1), false
	for _, d := range shape {
		if d < 0 {
			return fail("shape %v: a negative dimension", shape)
		}
		if d != 0 && size > uint64(dataLen)/uint64(d) {
			overflow = true // more than the data could hold
			continue
		}
		size *= uint64(d)
	}
	if overflow {
		// The count in the message is the shape's, in full.
		need := big.NewInt(4)
		for _, d := range shape {
			need.Mul(need, big.NewInt(int64(d)))
		}
		if need.Sign() == 0 {
			size, overflow = 0, false // a zero dimension: no values at all
		} else {
			return fail("shape %v of F32 needs %s bytes, data_offsets %v span %d", shape, need, off, off[1]-off[0])
		}
	}
	if 4*size != off[1]-off[0] {
		return fail("shape %v of F32 needs %d bytes, data_offsets %v span %d", shape, 4*size, off, off[1]-off[0])
	}
	return Tensor{Name: name, Shape: slices.Clone(shape)}, off, nil
}

// Save writes the network to a safetensors file at path, whole or not at
// all: every tensor of Tensors (the running statistics too) and the
// metadata taflab.format, taflab.format_version, taflab.config (the JSON of
// Config), taflab.input_encoding and taflab.policy_size, taflab.planes_of
// when the network has a PlanesOf, plus extra (a training step, say). extra
// may not set those keys.
func (n *Network) Save(path string, extra map[string]string) error {
	cfg, err := json.Marshal(n.cfg)
	if err != nil {
		return errctx.Errorf("net", "%s: %w", path, err)
	}
	meta := map[string]string{
		MetaFormat:        networkFormat,
		MetaFormatVersion: networkFormatVersion,
		MetaConfig:        string(cfg),
		MetaInputEncoding: InputEncoding,
		MetaPolicySize:    strconv.Itoa(PolicySize),
	}
	if planes, err := n.planesOfMeta(); err != nil {
		return errctx.Errorf("net", "%s: %w", path, err)
	} else if planes != "" {
		meta[MetaPlanesOf] = planes
	}
	for k, v := range extra {
		if _, ok := meta[k]; ok || k == MetaPlanesOf {
			return errctx.Errorf("net", "%s: the metadata key %q is Save's own; extra may not set it", path, k)
		}
		meta[k] = v
	}
	return WriteSafetensors(path, n.tensors, meta)
}

// ExtraMeta returns the metadata of a network file (Load's) that are not
// Save's own keys (a training step, say): what a copy passes to Save as
// extra to keep them.
func ExtraMeta(meta map[string]string) map[string]string {
	extra := map[string]string{}
	for k, v := range meta {
		switch k {
		case MetaFormat, MetaFormatVersion, MetaConfig, MetaInputEncoding, MetaPolicySize, MetaPlanesOf:
		default:
			extra[k] = v
		}
	}
	return extra
}

// planesOfMeta returns the value of MetaPlanesOf, "" when the network has
// no PlanesOf. Save and ExportONNX write it.
func (n *Network) planesOfMeta() (string, error) {
	if n.planesOf == nil {
		return "", nil
	}
	def, err := json.Marshal(n.planesOf.Definition())
	if err != nil {
		return "", err
	}
	return string(def), nil
}

// Load reads a network that Save wrote: it checks the format and its
// version, refuses another input encoding or policy size, builds the
// architecture of taflab.config and fills every tensor, refusing a missing
// or extra tensor or a shape of another architecture. It returns the
// network and the file's metadata (Save's keys and its extra).
func Load(path string) (*Network, map[string]string, error) {
	tensors, meta, err := ReadSafetensors(path)
	if err != nil {
		return nil, nil, err
	}
	n, err := networkFrom(tensors, meta)
	if err != nil {
		return nil, nil, errctx.Errorf("net", "%s: %w", path, err)
	}
	return n, meta, nil
}

func networkFrom(tensors []Tensor, meta map[string]string) (*Network, error) {
	if f, ok := meta[MetaFormat]; !ok {
		return nil, fmt.Errorf("no %s in the metadata: not a taflab network file", MetaFormat)
	} else if f != networkFormat {
		return nil, fmt.Errorf("%s is %q, not %q: not a taflab network file", MetaFormat, f, networkFormat)
	}
	if v, ok := meta[MetaFormatVersion]; !ok {
		return nil, fmt.Errorf("no %s in the metadata", MetaFormatVersion)
	} else if v != networkFormatVersion {
		return nil, fmt.Errorf("format version %q, this build reads version %s", v, networkFormatVersion)
	}
	if enc, ok := meta[MetaInputEncoding]; !ok {
		return nil, fmt.Errorf("no %s in the metadata", MetaInputEncoding)
	} else if enc != InputEncoding {
		return nil, fmt.Errorf("input encoding %s, this build reads %s", enc, InputEncoding)
	}
	if ps := meta[MetaPolicySize]; ps != strconv.Itoa(PolicySize) {
		return nil, fmt.Errorf("policy size %q, this build has %d", ps, PolicySize)
	}
	cfg, err := parseConfig(meta[MetaConfig])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", MetaConfig, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %s", MetaConfig, messages(err))
	}
	// Check the tensors against the architecture before building it: a
	// config alone must not make Load allocate more than the file holds.
	specs := architecture(cfg)
	byName := make(map[string]*Tensor, len(tensors))
	for i := range tensors {
		byName[tensors[i].Name] = &tensors[i]
	}
	arch := fmt.Sprintf("%d blocks of %d channels, value head %d channels and %d hidden", cfg.Blocks, cfg.Channels, cfg.ValueChannels, cfg.ValueHidden)
	var errs []string
	known := make(map[string]bool, len(specs))
	for _, want := range specs {
		known[want.Name] = true
		got, ok := byName[want.Name]
		if !ok {
			errs = append(errs, fmt.Sprintf("tensor %q is missing (the config says %s)", want.Name, arch))
		} else if !slices.Equal(got.Shape, want.Shape) {
			errs = append(errs, fmt.Sprintf("tensor %q has shape %v, the config's architecture (%s) has %v", want.Name, got.Shape, arch, want.Shape))
		}
	}
	for _, t := range tensors {
		if !known[t.Name] {
			errs = append(errs, fmt.Sprintf("tensor %q is not part of the config's architecture (%s)", t.Name, arch))
		}
	}
	if len(errs) > 0 {
		if len(errs) > 3 {
			errs = append(errs[:3], fmt.Sprintf("and %d more", len(errs)-3))
		}
		return nil, fmt.Errorf("the tensors are of another architecture: %s", strings.Join(errs, "; "))
	}
	n, err := New(cfg, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", MetaConfig, err)
	}
	for _, t := range n.tensors {
		got := byName[t.Name]
		if got == nil || !slices.Equal(got.Shape, t.Shape) || len(got.Data) != len(t.Data) {
			// architecture and layout disagree: a bug, not a bad file.
			return nil, fmt.Errorf("tensor %q: the network's layout differs from net.architecture", t.Name)
		}
		// A NaN weight would make every evaluation NaN and the search
		// play at random; a negative variance, the same once folded.
		for i, x := range got.Data {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("tensor %q: element %d is %v: weights must be finite", t.Name, i, x)
			}
			if x < 0 && hasSuffix(t.Name, ".running_var") {
				return nil, fmt.Errorf("tensor %q: element %d is %v: a variance cannot be negative", t.Name, i, x)
			}
		}
		copy(t.Data, got.Data)
	}
	if text, ok := meta[MetaPlanesOf]; ok {
		if n.planesOf, err = parsePlanesOf(text); err != nil {
			return nil, fmt.Errorf("%s: %w", MetaPlanesOf, err)
		}
	}
	return n, nil
}

// parsePlanesOf reads the JSON of a rule set's definition (MetaPlanesOf)
// into the rule set, which must be of the network's board size.
func parsePlanesOf(text string) (*rules.Variant, error) {
	var def rules.Definition
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&def); err != nil {
		return nil, fmt.Errorf("not the JSON of a rule set: %w", err)
	}
	v, err := rules.Compile(def)
	if err != nil {
		return nil, err
	}
	// A shipped rule set's name stands for its rules alone, in network
	// files as in every other (variants.Parse refuses a changed copy).
	if keys := variants.Differences(def); keys != nil {
		return nil, fmt.Errorf("rule set %q is a shipped rule set's name, but the rules differ from it in %s: a network file names a shipped rule set only with its rules", v.Name(), strings.Join(keys, ", "))
	}
	if v.Size() != BoardSize {
		return nil, fmt.Errorf("rule set %s is %dx%d; the network plays %dx%d", v.Name(), v.Size(), v.Size(), BoardSize, BoardSize)
	}
	return v, nil
}

// parseConfig parses the JSON of a Config, every key required and no other.
func parseConfig(s string) (Config, error) {
	var c struct {
		Blocks        *int `json:"blocks"`
		Channels      *int `json:"channels"`
		ValueChannels *int `json:"value_channels"`
		ValueHidden   *int `json:"value_hidden"`
	}
	if s == "" {
		return Config{}, errors.New("missing")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%q: %v", s, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Config{}, fmt.Errorf("%q: bytes after the JSON object", s)
	}
	for key, p := range map[string]*int{"blocks": c.Blocks, "channels": c.Channels, "value_channels": c.ValueChannels, "value_hidden": c.ValueHidden} {
		if p == nil {
			return Config{}, fmt.Errorf("%q: no %s", s, key)
		}
	}
	return Config{Blocks: *c.Blocks, Channels: *c.Channels, ValueChannels: *c.ValueChannels, ValueHidden: *c.ValueHidden}, nil
}

// Hash returns a short hex digest (16 digits of SHA-256) of the network's
// tensors: names, shapes and values, running statistics included. Equal
// networks have equal hashes; it names a network in evaluator ids.
func (n *Network) Hash() string {
	h := sha256.New()
	var buf []byte
	for _, t := range n.tensors {
		buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(len(t.Name)))
		buf = append(buf, t.Name...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(t.Shape)))
		for _, d := range t.Shape {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(d))
		}
		h.Write(buf)
		for start := 0; start < len(t.Data); start += 4096 {
			buf = buf[:0]
			for _, v := range t.Data[start:min(start+4096, len(t.Data))] {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			}
			h.Write(buf)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
