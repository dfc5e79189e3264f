package cli

import (
	"taflab/internal/fileio"
	"taflab/loop"
	"taflab/match"
	"taflab/openings"
	"taflab/player"
)

// The names the commands' tests know these by, in the packages that own them.
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
