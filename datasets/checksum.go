package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
)

// The checksum. The Go Arrow reader trusts the lengths written in a file's
// flatbuffers: a flipped bit there can make it try to allocate gigabytes and
// end the process, which no recover catches. So every file carries a CRC-32C
// of all its bytes, checked before the Arrow library reads any of them.
//
// It lives in the schema metadata (KeyChecksum), whose value the writer
// writes twice, in the schema message at the start of the file and in the
// footer at the end: checksumPrefix and 8 hex digits. The checksum is that of
// the whole file with both copies of the digits read as "00000000". The two
// places are found from the file's framing alone (the first message's length
// after the opening magic, the footer's length before the closing one), so
// nothing is parsed before the check. See Arrow's "IPC File Format".
//
// The checksum guards against what happens to a file after it was written
// (bad disks, cut copies, edits). A file whose checksum matches but whose
// flatbuffers are malformed, which only a faulty writer would make, is still
// read by the Arrow library unguarded.

// KeyChecksum is the metadata key of the file's checksum: "crc32c:" and 8
// hex digits, the CRC-32C (Castagnoli) of the whole file with the digits of
// both copies of this value (in the schema message and in the footer) read
// as '0'.
const KeyChecksum = "taflab.checksum"

const (
	checksumPrefix = "crc32c:"
	checksumDigits = 8
	// checksumBlank is the value written before the checksum is known.
	checksumBlank = checksumPrefix + "00000000"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Framing of an Arrow IPC file: "ARROW1" and 2 bytes of padding, the stream
// (messages, each 0xFFFFFFFF, an int32 length and a flatbuffer; the schema
// first), the footer flatbuffer, its int32 length and "ARROW1".
const (
	fileHeaderLen  = 8  // "ARROW1\0\0"
	fileTrailerLen = 10 // int32 footer length + "ARROW1"
)

// checksumSpots returns the offsets of the checksum digits in the schema
// message and in the footer of an Arrow IPC file.
func checksumSpots(data []byte) ([2]int, error) {
	var spots [2]int
	n := len(data)
	if n < fileHeaderLen+8+fileTrailerLen {
		return spots, errors.New("truncated: too short for an Arrow IPC file")
	}
	if binary.LittleEndian.Uint32(data[fileHeaderLen:]) != 0xFFFFFFFF {
		return spots, errors.New("corrupt: no message after the opening magic")
	}
	schemaStart := fileHeaderLen + 8
	schemaEnd := schemaStart + int(int32(binary.LittleEndian.Uint32(data[fileHeaderLen+4:])))
	footerLen := int(int32(binary.LittleEndian.Uint32(data[n-fileTrailerLen:])))
	footerEnd := n - fileTrailerLen
	footerStart := footerEnd - footerLen
	if schemaEnd <= schemaStart || footerLen <= 0 || footerStart < schemaEnd || schemaEnd > n {
		return spots, errors.New("corrupt: the lengths of the schema message and the footer do not fit the file")
	}
	for i, region := range [2][2]int{{schemaStart, schemaEnd}, {footerStart, footerEnd}} {
		part := data[region[0]:region[1]]
		at := bytes.Index(part, []byte(checksumPrefix))
		if at < 0 {
			return spots, fmt.Errorf("no %s in the schema metadata: not a taflab dataset file", KeyChecksum)
		}
		at += len(checksumPrefix)
		if at+checksumDigits > len(part) || bytes.Contains(part[at:], []byte(checksumPrefix)) {
			return spots, fmt.Errorf("corrupt: malformed %s", KeyChecksum)
		}
		spots[i] = region[0] + at
	}
	return spots, nil
}

// fileChecksum returns the checksum of data with the digits at spots read
// as '0'.
func fileChecksum(data []byte, spots [2]int) uint32 {
	zeros := []byte("00000000")
	crc := crc32.Update(0, castagnoli, data[:spots[0]])
	crc = crc32.Update(crc, castagnoli, zeros)
	crc = crc32.Update(crc, castagnoli, data[spots[0]+checksumDigits:spots[1]])
	crc = crc32.Update(crc, castagnoli, zeros)
	return crc32.Update(crc, castagnoli, data[spots[1]+checksumDigits:])
}

// seal writes the checksum of a file that the writer made with the value
// checksumBlank.
func seal(data []byte) error {
	spots, err := checksumSpots(data)
	if err != nil {
		return fmt.Errorf("sealing the file: %v", err)
	}
	digits := fmt.Appendf(nil, "%08x", fileChecksum(data, spots))
	for _, at := range spots {
		if string(data[at:at+checksumDigits]) != "00000000" {
			return fmt.Errorf("sealing the file: checksum field at byte %d is not blank", at)
		}
		copy(data[at:], digits)
	}
	return nil
}

// verify checks the checksum of a file.
func verify(data []byte) error {
	spots, err := checksumSpots(data)
	if err != nil {
		return err
	}
	a, b := data[spots[0]:spots[0]+checksumDigits], data[spots[1]:spots[1]+checksumDigits]
	if !bytes.Equal(a, b) {
		return fmt.Errorf("corrupt: the checksum is %s in the schema message but %s in the footer", a, b)
	}
	want, err := strconv.ParseUint(string(a), 16, 32)
	if err != nil {
		return fmt.Errorf("corrupt: checksum %q is not 8 hex digits", a)
	}
	if got := fileChecksum(data, spots); got != uint32(want) {
		return fmt.Errorf("corrupt: checksum %08x, the file says %08x", got, want)
	}
	return nil
}
