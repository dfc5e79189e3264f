// Package protocol holds the wire formats that taflab shares with other tafl
// programs, on both sides of an engine protocol: OpenTafl's position
// records (rows from rank 1, 't' attacker, 'T' defender, 'K' king), its
// move records ("e5-e8", "Ke5-e8xe9/f8++"), its rules strings (OTR, "dim:11
// name:Copenhagen atkf:y tfr:w sw:s efe:y start:/.../") compiled into a
// rules.Definition, its game records (.otg: tags, the rules string, the
// moves with their captures and comments; ParseGameRecord and
// FormatGameRecord), and TaflZero's UCI-like move notation ("e1e2").
//
// The engine server (package engine) reads what a host sends with it, and
// the host side (external engines as match players) writes what an engine
// reads with it:
//
//	def, err := protocol.CompileRules("dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/.../")
//	if err != nil { ... } // a *RulesError naming the key taflab cannot play
//	v, err := rules.Compile(def)
//	p, err := protocol.ParseBoard("/3ttttt3/.../", rules.Attackers)
//	m, err := protocol.ParseMove("Ke5-e8xe9/f8++")
//
// The sources are OpenTafl's opentafl-notation-spec.txt and
// opentafl-engine-protocol.txt (jslater89/OpenTafl) and TaflZero's command
// loop (sovelin/taflzero, src/uci/mod.rs). It imports only rules (and
// internal/errctx, which holds its errors' package name apart).
package protocol
