package cli

import (
	"taflab/internal/fileio"
	"taflab/loop"
	"taflab/match"
	"taflab/openings"
	"taflab/player"
)

// The names the commands' tests knew these by, before each moved to the
// package that owns it.
type (
	MatchFile  = match.File
	MatchGame  = match.FileGame
	PlayerInfo = match.PlayerInfo
)

// MatchFileName is match.FileName.
const MatchFileName = match.FileName

var (
	ReadMatchFile   = match.ReadFile
	ReadBestPointer = loop.ReadBestPointer
	WriteJSON       = fileio.WriteJSON
	LoadSuite       = openings.LoadSuite
	ParsePlayer     = player.Parse
)
