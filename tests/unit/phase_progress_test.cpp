// PhaseProgress and PhaseStep on a clock and an output the test drives: silent for short phases, plain lines
// at the log-file interval when not a terminal, in-place lines on a terminal, rate and ETA for a known
// sequence of updates, a last line, and nothing at all on ranks other than 0 or with --quiet.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphrf/mpi/log.hpp"
#include "graphrf/mpi/phase_progress.hpp"

using namespace graphrf;

namespace {

// A Log writing to a temporary file, and what it wrote.
class CapturedLog {
 public:
  CapturedLog(bool root, bool quiet, bool terminal) : file_(std::tmpfile(), &std::fclose), log_(root, quiet, terminal, file_.get()) {}
  const Log* log() const { return &log_; }
  std::string text() const {
    std::fflush(file_.get());
    std::rewind(file_.get());
    std::string out;
    for (int c; (c = std::fgetc(file_.get())) != EOF;) out += static_cast<char>(c);
    return out;
  }

 private:
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  Log log_;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  EXPECT_EQ(start, text.size()) << "the output does not end with a whole line";
  return lines;
}

// A phase of `seconds` seconds doing `per_second` units a second: at simulated second k (k = 1..seconds) the
// loop calls update(k * per_second) for one clock read's worth of calls. The phase ends at `end_time`.
void run_phase(const Log* log, std::int64_t seconds, std::int64_t per_second, double end_time) {
  double now = 0;
  {
    PhaseProgress progress("sorting", seconds * per_second, log, [&now] { return now; });
    for (std::int64_t k = 1; k <= seconds; ++k) {
      now = static_cast<double>(k);
      for (std::uint64_t call = 0; call < PhaseProgress::kCallsPerClockRead; ++call) progress.update(k * per_second);
    }
    now = end_time;
  }
}

// The line expected at simulated second k of run_phase, computed here from the definitions: the share done,
// the rate so far (units per second) and the time left at that rate.
std::string expected_line(std::int64_t k, std::int64_t seconds, std::int64_t per_second) {
  const double done = static_cast<double>(k * per_second), total = static_cast<double>(seconds * per_second);
  const double rate = done / static_cast<double>(k);
  return "sorting: " + fmt(100.0 * done / total, 1) + "% of rank 0's share, " + fmt(static_cast<double>(k), 1) + " s, " +
         rate_per_second(rate) + ", ETA " + fmt((total - done) / rate, 0) + " s";
}

}  // namespace

TEST(PhaseProgress, ShortPhasesPrintNothing) {
  CapturedLog out(true, false, false);
  // 1.9 s: under the first-line delay, and the last line only follows an earlier one.
  double now = 0;
  {
    PhaseProgress progress("sorting", 100, out.log(), [&now] { return now; });
    for (int call = 0; call < 10 * static_cast<int>(PhaseProgress::kCallsPerClockRead); ++call) {
      now = 1.9 * call / (10.0 * PhaseProgress::kCallsPerClockRead);
      progress.update(call / 4096);
    }
  }
  EXPECT_EQ(out.text(), "");
}

TEST(PhaseProgress, LogFileGetsPlainLinesEvery20SecondsWithRateEtaAndALastLine) {
  CapturedLog out(true, false, false);
  run_phase(out.log(), 60, 1000, 60.5);
  const std::string text = out.text();
  EXPECT_EQ(text.find('\r'), std::string::npos);
  // First line after 2 s, then every 20 s (22, 42), then the last line at the phase's end.
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_EQ(lines.size(), 4u) << text;
  EXPECT_EQ(lines[0], expected_line(2, 60, 1000));
  EXPECT_EQ(lines[1], expected_line(22, 60, 1000));
  EXPECT_EQ(lines[2], expected_line(42, 60, 1000));
  EXPECT_EQ(lines[0], "sorting: 3.3% of rank 0's share, 2.0 s, 1.0k/s, ETA 58 s");  // the same, spelled out
  // 60000 units in 60.5 s.
  EXPECT_EQ(lines[3], "sorting: 100.0% of rank 0's share, 60.5 s (done, " + rate_per_second(60000 / 60.5) + ")");
  EXPECT_EQ(rate_per_second(60000 / 60.5), "991.7/s");
}

TEST(PhaseProgress, TerminalLineIsRewrittenInPlaceEvery2Seconds) {
  CapturedLog out(true, false, true);
  run_phase(out.log(), 9, 2'500'000, 9.0);
  const std::string text = out.text();
  // Lines at 2, 4, 6, 8 s and the last one, each starting with a carriage return; only the last ends the line.
  std::vector<std::string> shown;
  for (std::size_t at = text.find('\r'); at != std::string::npos; at = text.find('\r', at + 1))
    shown.push_back(text.substr(at + 1, text.find_first_of("\r\n", at + 1) - at - 1));
  ASSERT_EQ(shown.size(), 5u) << text;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::int64_t k = 2 * static_cast<std::int64_t>(i + 1);
    EXPECT_EQ(shown[i].substr(0, shown[i].find_last_not_of(' ') + 1), expected_line(k, 9, 2'500'000));
  }
  EXPECT_EQ(expected_line(4, 9, 2'500'000), "sorting: 44.4% of rank 0's share, 4.0 s, 2.50M/s, ETA 5 s");
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1);
}

TEST(PhaseProgress, OnlyRankZeroPrintsAndQuietSilences) {
  CapturedLog other_rank(false, false, false), quiet(true, true, false);
  run_phase(other_rank.log(), 60, 1000, 60);
  run_phase(quiet.log(), 60, 1000, 60);
  run_phase(nullptr, 60, 1000, 60);  // no Log at all (tests and library users)
  EXPECT_EQ(other_rank.text(), "");
  EXPECT_EQ(quiet.text(), "");
}

TEST(PhaseProgress, WithoutAProgramLogNothingPrints) {
  // The constructor for library code reports to the program's Log, which tests never set.
  ASSERT_EQ(phase_progress_log(), nullptr);
  PhaseProgress progress("generating", 10);
  for (int i = 0; i < 10; ++i) progress.update(i);
  PhaseStep step("writing", true);
}

TEST(PhaseStep, StartAndEndLinesOnlyForSlowStepsAndNoEndLineOnError) {
  CapturedLog out(true, false, false);
  set_phase_progress_log(out.log());
  { PhaseStep quick("writing /small", false); }
  { PhaseStep slow("writing /grf (3000000 rows)", true); }
  try {
    PhaseStep failing("routing", true);
    throw std::runtime_error("disk full");
  } catch (const std::runtime_error&) {
  }
  set_phase_progress_log(nullptr);
  const std::vector<std::string> lines = lines_of(out.text());
  ASSERT_EQ(lines.size(), 3u) << out.text();
  EXPECT_EQ(lines[0], "writing /grf (3000000 rows) ...");
  EXPECT_EQ(lines[1].rfind("writing /grf (3000000 rows): done in ", 0), 0u) << lines[1];
  EXPECT_EQ(lines[1].substr(lines[1].size() - 2), " s");
  EXPECT_EQ(lines[2], "routing ...");
}

TEST(PhaseProgress, StepReadsTheClockAtEveryCall) {
  // 30 iterations of 1 s each, in a log file: lines at 2 and 22 s, and the last one.
  CapturedLog out(true, false, false);
  double now = 0;
  {
    PhaseProgress progress("chebyshev", 30, out.log(), [&now] { return now; });
    for (std::int64_t k = 1; k <= 30; ++k) {
      now = static_cast<double>(k);
      progress.step(k);
    }
  }
  const std::vector<std::string> lines = lines_of(out.text());
  ASSERT_EQ(lines.size(), 3u) << out.text();
  EXPECT_EQ(lines[0], "chebyshev: 6.7% of rank 0's share, 2.0 s, 1.0/s, ETA 28 s");
  EXPECT_EQ(lines[1], "chebyshev: 73.3% of rank 0's share, 22.0 s, 1.0/s, ETA 8 s");
  EXPECT_EQ(lines[2], "chebyshev: 100.0% of rank 0's share, 30.0 s (done, 1.0/s)");
}
