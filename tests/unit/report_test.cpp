#include "graphrf/core/report.hpp"

#include <gtest/gtest.h>

namespace graphrf {

TEST(Report, KeyValuesKeepOrderAndDigits) {
  Report r;
  r.count("nodes", 34).number("kernel_error", 0.123456789, 6, "kernel error").number("seconds", 2.0, 1);
  EXPECT_EQ(r.key_values(), "nodes=34 kernel_error=0.123457 seconds=2.0");
  ASSERT_NE(r.find("kernel_error"), nullptr);
  EXPECT_EQ(r.find("kernel_error")->label, "kernel error");
  EXPECT_EQ(r.find("missing"), nullptr);
}

TEST(Report, AppendKeepsBothInOrder) {
  Report a, b;
  a.count("x", -1);
  b.number("y", 1.5, 2);
  a.append(b);
  EXPECT_EQ(a.key_values(), "x=-1 y=1.50");
}

TEST(Report, SignificantDigitsInScientificWhenSmallOrLarge) {
  Report r;
  r.significant("error", 1.234567e-7).significant("min", 0.5).significant("big", 12345678.0);
  EXPECT_EQ(r.key_values(), "error=1.23457e-07 min=0.5 big=1.23457e+07");
}

TEST(Report, AttributeOnlyFiguresStayOutOfTheResultLine) {
  Report r;
  r.count("n", 3).attribute(0.25, {{"/gp/metrics", "coverage"}}).number("x", 1.0, 1);
  EXPECT_EQ(r.key_values(), "n=3 x=1.0");
  ASSERT_EQ(r.figures().size(), 3u);
  EXPECT_EQ(r.figures()[1].attributes.front().name, "coverage");
}

TEST(Report, SignificantDigitsAndTextAsAStreamShowsThem) {
  Report r;
  r.significant("lambda_k", 0.000123456789).significant("large", 1234567.0).significant("one", 1.0).text("sigma", "1,3,2");
  EXPECT_EQ(r.key_values(), "lambda_k=0.000123457 large=1.23457e+06 one=1 sigma=1,3,2");
  EXPECT_EQ(std::get<std::string>(r.find("sigma")->value), "1,3,2");
}

}  // namespace graphrf
