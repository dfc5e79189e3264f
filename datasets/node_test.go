package datasets

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"taflab/internal/nodetest"
	"taflab/rules"
)

// jsFile is what testdata/read_arrow.mjs prints for a file.
type jsFile struct {
	File     string            `json:"file"`
	Metadata map[string]string `json:"metadata"`
	Columns  []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Nullable bool   `json:"nullable"`
	} `json:"columns"`
	NumRows int             `json:"num_rows"`
	Rows    json.RawMessage `json:"rows"`
}

type jsPosition struct {
	GameID      string `json:"game_id"`
	Ply         int32  `json:"ply"`
	RuleSet     string `json:"rule_set"`
	SideToMove  string `json:"side_to_move"`
	AttackersLo uint64 `json:"attackers_lo,string"`
	AttackersHi uint64 `json:"attackers_hi,string"`
	DefendersLo uint64 `json:"defenders_lo,string"`
	DefendersHi uint64 `json:"defenders_hi,string"`
	King        uint8  `json:"king"`
	BoardSize   uint8  `json:"board_size"`
	Position    string `json:"position"`
	Policy      []struct {
		Move uint16  `json:"move"`
		Prob float64 `json:"prob"`
	} `json:"policy"`
	FullSearch bool    `json:"full_search"`
	RootValue  float64 `json:"root_value"`
	Result     int8    `json:"result"`
	Reason     string  `json:"reason"`
}

type jsGame struct {
	GameID    string   `json:"game_id"`
	RuleSet   string   `json:"rule_set"`
	Moves     []string `json:"moves"`
	Winner    string   `json:"winner"`
	Reason    string   `json:"reason"`
	Length    int32    `json:"length"`
	Seed      uint64   `json:"seed,string"`
	Evaluator string   `json:"evaluator"`
	Start     string   `json:"start"`
	Attacker  int32    `json:"attacker_playouts"`
	Defender  int32    `json:"defender_playouts"`
}

// TestNodeReadsFiles reads written files with apache-arrow under Node.js
// and checks that it finds the same schema metadata and rows.
func TestNodeReadsFiles(t *testing.T) {
	node, modules := nodetest.Require(t, "apache-arrow", "apache-arrow@21")
	dir := t.TempDir()
	positions, games := genShard(t, defTablut, 4, 120, 23)
	positions[0].RootValue, positions[1].RootValue = -1, 1
	games[0].Seed = 1<<64 - 1 // beyond JavaScript's exact integers
	posPath, gamesPath := mustWriteShard(t, dir, ShardName(testTime(0), "node", 1), defTablut, positions, games)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "read_arrow.mjs"), modules, posPath, gamesPath)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node read_arrow.mjs: %v\n%s", err, stderr)
	}
	var files []jsFile
	if err := json.Unmarshal(out, &files); err != nil {
		t.Fatalf("decoding the script's output: %v\n%.2000s", err, out)
	}
	if len(files) != 2 {
		t.Fatalf("got %d files from the script, want 2", len(files))
	}

	for i, f := range files {
		path := []string{posPath, gamesPath}[i]
		if want := readMetadata(t, path); !reflect.DeepEqual(f.Metadata, want) {
			t.Errorf("%s: metadata: got %v, want %v", path, f.Metadata, want)
		}
		want := positionFields
		if i == 1 {
			want = gameFields
		}
		if len(f.Columns) != len(want) {
			t.Fatalf("%s: got %d columns, want %d", path, len(f.Columns), len(want))
		}
		for j, c := range f.Columns {
			if c.Name != want[j].Name || c.Nullable {
				t.Errorf("%s: column %d: got %s (%s, nullable %v), want %s, not nullable", path, j, c.Name, c.Type, c.Nullable, want[j].Name)
			}
		}
		t.Logf("apache-arrow sees %s: %d rows; columns %v", filepath.Base(path), f.NumRows, f.Columns)
	}

	var jsPositions []jsPosition
	if err := json.Unmarshal(files[0].Rows, &jsPositions); err != nil {
		t.Fatalf("decoding position rows: %v", err)
	}
	got := make([]PositionRow, len(jsPositions))
	for i, r := range jsPositions {
		side, ok := sideNames.lookup(r.SideToMove)
		if !ok {
			t.Fatalf("row %d: side to move %q", i, r.SideToMove)
		}
		reason, ok := reasonNames.lookup(r.Reason)
		if !ok {
			t.Fatalf("row %d: reason %q", i, r.Reason)
		}
		p := PositionRow{
			GameID:  r.GameID,
			Ply:     r.Ply,
			RuleSet: r.RuleSet,
			Position: rules.Position{
				Attackers: rules.Bitboard{Lo: r.AttackersLo, Hi: r.AttackersHi},
				Defenders: rules.Bitboard{Lo: r.DefendersLo, Hi: r.DefendersHi},
				King:      rules.Square(r.King),
				ToMove:    rules.Side(side),
				Size:      r.BoardSize,
			},
			FullSearch: r.FullSearch,
			RootValue:  float32(r.RootValue),
			Result:     r.Result,
			Reason:     rules.Reason(reason),
		}
		for _, e := range r.Policy {
			p.Policy = append(p.Policy, rules.MoveProb{Move: rules.Move(e.Move), Prob: float32(e.Prob)})
		}
		if p.Position.String() != r.Position {
			t.Errorf("row %d: position column %q, the bitboards say %q", i, r.Position, p.Position.String())
		}
		got[i] = p
	}
	if want := normalize(positions); !reflect.DeepEqual(got, want) {
		t.Errorf("positions: got %d rows, want %d; %s", len(got), len(want), firstDiff(got, want))
	}

	var jsGames []jsGame
	if err := json.Unmarshal(files[1].Rows, &jsGames); err != nil {
		t.Fatalf("decoding game rows: %v", err)
	}
	gotGames := make([]GameRow, len(jsGames))
	for i, g := range jsGames {
		winner, ok := winnerNames.lookup(g.Winner)
		if !ok {
			t.Fatalf("game %d: winner %q", i, g.Winner)
		}
		reason, ok := reasonNames.lookup(g.Reason)
		if !ok {
			t.Fatalf("game %d: reason %q", i, g.Reason)
		}
		gotGames[i] = GameRow{GameID: g.GameID, RuleSet: g.RuleSet, Moves: g.Moves, Winner: rules.Winner(winner),
			Reason: rules.Reason(reason), Length: g.Length, Seed: g.Seed, Evaluator: g.Evaluator,
			Start: g.Start, AttackerPlayouts: g.Attacker, DefenderPlayouts: g.Defender}
	}
	if want := normalizeGames(games); !reflect.DeepEqual(gotGames, want) {
		t.Errorf("games: got %v, want %v", gotGames, want)
	}
}
