package net

import "taflab/internal/errctx"

// LoadBytes is Load of a network file's contents b; name stands for the
// file in errors. Programs that open files through a restricted root (the
// web page's server, which serves only the folders it was given) read the
// bytes themselves and hand them here.
func LoadBytes(name string, b []byte) (*Network, map[string]string, error) {
	tensors, meta, err := ReadSafetensorsBytes(name, b)
	if err != nil {
		return nil, nil, err
	}
	n, err := networkFrom(tensors, meta)
	if err != nil {
		return nil, nil, errctx.Errorf("net", "%s: %w", name, err)
	}
	return n, meta, nil
}
