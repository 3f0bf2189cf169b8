#pragma once
// One function per subcommand. Each parses its own flags (CLI11), calls the library, prints
// human progress on stderr and, with --json, exactly one JSON document on stdout.
// argv[0] is the subcommand's name. Returns the process exit code: 0 success, 1 runtime
// failure, 2 bad usage or bad input.

namespace preflight::cli {

int RunSelect(int argc, char** argv);
int RunCorpus(int argc, char** argv);
int RunLedger(int argc, char** argv);
int RunDemo(int argc, char** argv);
int RunTrain(int argc, char** argv);
int RunTrial(int argc, char** argv);
int RunBattery(int argc, char** argv);
int RunLadder(int argc, char** argv);
int RunForecast(int argc, char** argv);
int RunReport(int argc, char** argv);
int RunCost(int argc, char** argv);
int RunPlan(int argc, char** argv);
int RunFit(int argc, char** argv);
int RunMemory(int argc, char** argv);
int RunScore(int argc, char** argv);

}  // namespace preflight::cli
