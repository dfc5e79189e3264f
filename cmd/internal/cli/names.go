package cli

import (
	"taflab/internal/fileio"
	"taflab/loop"
	"taflab/match"
	"taflab/openings"
	"taflab/player"
)

// The names the commands' tests (only they) know these by, in the packages
// that own them.
type (
	MatchFile  = match.File
	MatchGame  = match.FileGame
	PlayerInfo = match.PlayerInfo
)

var (
	MatchFileName   = match.FileName
	ReadMatchFile   = match.ReadFile
	WriteMatchFiles = match.WriteFiles
	ReadBestPointer = loop.ReadBestPointer
	WriteJSON       = fileio.WriteJSON
	LoadSuite       = openings.LoadSuite
	ParsePlayer     = player.Parse
)
