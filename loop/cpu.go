package loop

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"taflab/internal/cputime"
	"taflab/internal/errctx"
	"taflab/internal/fileio"
)

// CPUFile is a generation's CPU time by stage (gen-NNN/cpu.json): the
// seconds of processor time (user and system, all threads) the loop's
// process spent in each stage, added up over the attempts of a resumed
// run. Outside programs' own time (an engine the outside stages start) is
// not in it, nor followers' (external self-play).
const CPUFile = "cpu.json"

// costStages are the stages whose CPU time makes a generation: what the
// summary's CPU hours add up (rating games are not part of the cost).
var costStages = []Stage{StageSelfPlay, StageTrain, StageGate}

// readCPU reads a generation's CPU time by stage; none when it has no
// record.
func readCPU(dir string) (map[Stage]float64, error) {
	data, err := fileio.ReadFileLimit(filepath.Join(dir, CPUFile), fileio.MaxConfigBytes, "a CPU time record")
	if errors.Is(err, os.ErrNotExist) {
		return map[Stage]float64{}, nil
	}
	if err != nil {
		return nil, errctx.Errorf("loop", "%w", err)
	}
	cpu := map[Stage]float64{}
	if err := json.Unmarshal(data, &cpu); err != nil {
		return nil, errctx.Errorf("loop", "%s: %w", filepath.Join(dir, CPUFile), err)
	}
	return cpu, nil
}

// timed runs a stage of the generation in dir and adds the process's CPU
// time in it to dir's CPUFile, whether the stage finished or not. Where
// the process's CPU time cannot be read it records nothing.
func timed(dir string, stage Stage, run func() error) error {
	before, ok := cputime.Process()
	err := run()
	after, ok2 := cputime.Process()
	if !ok || !ok2 {
		return err
	}
	cpu, rerr := readCPU(dir)
	if rerr == nil {
		cpu[stage] += (after - before).Seconds()
		rerr = fileio.WriteJSON(filepath.Join(dir, CPUFile), cpu)
	}
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	return err // as it is: a stopped stage's context.Canceled
}
