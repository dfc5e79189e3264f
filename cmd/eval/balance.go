package main

import (
	"context"
	"io"

	"taflab/balance"
	"taflab/cmd/eval/internal/balancecmd"
)

// The balance subcommand is balancecmd's, its study package balance's;
// these are the names main and the tests know them by.
type (
	balanceJSON = balance.Report
	rateJSON    = balance.Rate
)

// Endings of recorded games that the rules did not end on the last move.
const (
	endTimedOut     = balance.EndTimedOut
	endResigned     = balance.EndResigned
	endAgreedDraw   = balance.EndAgreedDraw
	endPastRulesEnd = balance.EndPastRulesEnd
	endUnfinished   = balance.EndUnfinished
	endIllegal      = balance.EndIllegal
)

// ruleEndings are the endings the rules give, in the spec's order.
var ruleEndings = balance.RuleEndings

// runBalance is the balance subcommand; SIGINT and SIGTERM stop it with the
// report of the games played so far.
func runBalance(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return balancecmd.Run(args, stdin, stdout, stderr)
}

// runBalanceCtx is runBalance stopped by ctx instead of a signal.
func runBalanceCtx(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return balancecmd.RunCtx(ctx, args, stdin, stdout, stderr)
}
