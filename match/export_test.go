package match

// StartGame is startGame, for the tests of package match_test.
var StartGame = startGame
