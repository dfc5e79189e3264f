package cli

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseInts(t *testing.T) {
	tests := []struct {
		text    string
		min     int
		want    []int
		wantErr string // "" for none
	}{
		{"", 2, nil, ""},
		{"  ", 2, nil, ""},
		{"2,4,8", 2, []int{2, 4, 8}, ""},
		{"8, 2 ,4", 2, []int{8, 2, 4}, ""},
		{"3", 3, []int{3}, ""},
		{"0,1", 0, []int{0, 1}, ""},
		{"2,4,2", 2, nil, "entry 3, 2: given twice"},
		{"1,2", 2, nil, `entry 1, "1": not a whole number of at least 2`},
		{"2,-4", 2, nil, `"-4"`},
		{"2,x", 2, nil, `entry 2, "x": not a whole number`},
		// Issue 36: the error quoted the whole text, however long.
		{strings.Repeat("2,", 1000) + "x", 2, nil, `entry 2, 2: given twice`},
		{strings.Repeat("x", 1000), 2, nil, `entry 1, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...": not a whole number of at least 2`},
		{"2.5", 2, nil, `"2.5"`},
		{"2,,4", 2, nil, `""`},
		{"2,", 2, nil, "not a whole number"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q from %d", tt.text, tt.min), func(t *testing.T) {
			got, err := ParseInts(tt.text, tt.min)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("ParseInts(%q, %d): got %v, %v, want an error naming %q", tt.text, tt.min, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) || (tt.want == nil) != (got == nil) {
				t.Errorf("ParseInts(%q, %d): got %v, %v, want %v", tt.text, tt.min, got, err, tt.want)
			}
		})
	}
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "go run ./cmd/eval balance"},
		{[]string{"-games", "400", "-out", "runs/b"}, "go run ./cmd/eval balance -games 400 -out runs/b"},
		{[]string{"-variant", "otr:dim:11 name:x", ""}, "go run ./cmd/eval balance -variant 'otr:dim:11 name:x' ''"},
		{[]string{"-player", "it's"}, `go run ./cmd/eval balance -player 'it'\''s'`},
	}
	for _, tt := range tests {
		if got := CommandLine("eval balance", tt.args); got != tt.want {
			t.Errorf("got %v, want %v", got, tt.want)
		}
	}
}
