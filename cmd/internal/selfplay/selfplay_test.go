package selfplay

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"taflab/configs"
	"taflab/configs/variants"
	"taflab/mcts"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSelfPlay measures whole self-play with the built-in evaluator on
// every core (one worker per core, 8 games each), the default search
// settings (800 playouts full, 100 cheap) and the dataset writing: games per
// minute and the CPU use of the process.
func BenchmarkSelfPlay(b *testing.B) {
	cfg := configs.DefaultSelfPlay()
	cfg.Search = mcts.DefaultConfig()
	cfg.Workers = 0
	cfg.Games = 4 * runtime.GOMAXPROCS(0) * cfg.GamesPerWorker
	v := variants.MustLoad("copenhagen")
	games := 0
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		cfg.Out = b.TempDir()
		cfg.Seed = uint64(i)
		sum, err := Run(context.Background(), cfg, v, Options{})
		if err != nil {
			b.Fatal(err)
		}
		games += sum.Games
	}
	cpu := (cpuTime() - cpu0).Seconds()
	b.ReportMetric(float64(games)/b.Elapsed().Minutes(), "games/min")
	b.ReportMetric(100*cpu/b.Elapsed().Seconds()/float64(runtime.GOMAXPROCS(0)), "%cpu")
}
