package training

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"taflab/internal/fileio"
	"taflab/net"
)

// The metrics file (MetricsFile) of a run folder: a header, then a line a
// step, written by Run and read back by ReadMetrics.
const metricsHeader = "step,learning_rate,loss,policy_loss,value_loss,l2_loss,samples_per_s,elapsed_s\n"

// metricsFields is the number of fields of a metrics line.
var metricsFields = strings.Count(metricsHeader, ",") + 1

// ReadMetrics reads a run folder's metrics file (MetricsFile): a Step a
// line, in the order written, with Step, LearningRate, Losses,
// SamplesPerSec and Elapsed set (not Of). A line that is not a metrics
// line is an error naming it.
func ReadMetrics(path string) ([]Step, error) {
	data, err := fileio.ReadFileLimit(path, fileio.MaxRunFileBytes, "a metrics file")
	if err != nil {
		return nil, fmt.Errorf("training: %w", err)
	}
	var steps []Step
	for i, line := range strings.Split(string(data), "\n") {
		if i == 0 || line == "" {
			continue // the header
		}
		s, ok := parseMetricsLine(line)
		if !ok {
			return nil, fmt.Errorf("training: %s: line %d: %q is not a metrics line", path, i+1, line)
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// parseMetricsLine reads a line that metricsWriter wrote; ok is false for
// another line (one cut short by a kill, say).
func parseMetricsLine(line string) (s Step, ok bool) {
	f := strings.Split(line, ",")
	if len(f) != metricsFields {
		return Step{}, false
	}
	step, err := strconv.Atoi(f[0])
	if err != nil {
		return Step{}, false
	}
	var v [7]float64 // learning rate, loss, policy, value, l2, samples/s, seconds
	for i := range v {
		if v[i], err = strconv.ParseFloat(f[i+1], 64); err != nil {
			return Step{}, false
		}
	}
	return Step{Step: step, LearningRate: v[0], Losses: net.Losses{Policy: v[2], Value: v[3], L2: v[4]},
		SamplesPerSec: v[5], Elapsed: time.Duration(v[6] * float64(time.Second))}, true
}

// metricsWriter appends one CSV line per step.
type metricsWriter struct {
	f *os.File
	w *bufio.Writer
}

// openMetrics opens the metrics file for appending, after dropping the
// lines of steps after `keep` (written after the checkpoint a run resumes
// from, and about to be done again) and any line cut short by a kill.
func openMetrics(path string, keep int) (*metricsWriter, error) {
	data, err := fileio.ReadFileLimit(path, fileio.MaxRunFileBytes, "this file")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("training: %w", err)
	}
	var kept strings.Builder
	kept.WriteString(metricsHeader)
	for i, line := range strings.Split(string(data), "\n") {
		if i == 0 || line == "" {
			continue
		}
		if s, ok := parseMetricsLine(line); ok && s.Step <= keep {
			kept.WriteString(line + "\n")
		}
	}
	if err := fileio.WriteFile(path, []byte(kept.String())); err != nil {
		return nil, fmt.Errorf("training: %w", err)
	}
	f, err := fileio.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("training: %w", err)
	}
	return &metricsWriter{f: f, w: bufio.NewWriter(f)}, nil
}

func (m *metricsWriter) write(s Step) error {
	fmt.Fprintf(m.w, "%d,%.6g,%.6f,%.6f,%.6f,%.6f,%.1f,%.3f\n", s.Step, s.LearningRate, s.Losses.Total(),
		s.Losses.Policy, s.Losses.Value, s.Losses.L2, s.SamplesPerSec, s.Elapsed.Seconds())
	if err := m.w.Flush(); err != nil {
		return fmt.Errorf("training: metrics: %w", err)
	}
	return nil
}

// Close flushes and closes the file; closing twice is harmless.
func (m *metricsWriter) Close() error {
	if m.f == nil {
		return nil
	}
	err := errors.Join(m.w.Flush(), m.f.Close())
	m.f = nil
	if err != nil {
		return fmt.Errorf("training: metrics: %w", err)
	}
	return nil
}
