// Package taflab is a self-play training and analysis pipeline for
// hnefatafl: the rules core (rules), search (mcts), networks (net), datasets
// (datasets), embedded configuration (configs) and the commands in cmd/.
//
// This root package holds no code; its test checks that the packages keep
// their dependency order (see layering_test.go and the README).
package taflab
