// The search's PNG plots with gnuplot: for each tunable, the curves its
// step measured. A crossover shows both protocols' figures over sizes, one
// panel per kernel point; a choice or a buffer shows each value's time
// ratio to the reference (the geometric mean, with the range over points).
// The data and the script stay in DIR/plot-data.
#include <filesystem>
#include <fstream>
#include <map>

#include "tune/bench/gnuplot.hpp"
#include "tune/search/report.hpp"

namespace mpf::tune::search {

namespace fs = std::filesystem;

namespace {

const char* const kColours[] = {"#c0392b", "#2471a3", "#229954", "#8e44ad", "#d68910"};

// The panel a curve belongs in: a crossover's two curves of one point
// share one ("pingpong np 2"); the others have one panel.
std::string panel_of(const Curve& c, Method method) {
  if (method != Method::crossover) return "";
  return c.title.substr(0, c.title.find(", "));
}

}  // namespace

std::vector<std::string> write_plots(const SearchReport& r, const std::string& dir,
                                     std::vector<std::string>& problems) {
  const std::optional<bench::GnuplotRun> gnuplot = bench::prepare_plots(dir, problems);
  if (!gnuplot) return {};
  const fs::path& data = gnuplot->data;
  const fs::path script_path = data / "search.gp";
  std::ofstream script(script_path);
  std::vector<std::string> files;
  int number = 0;
  for (const Choice& c : r.outcome.choices) {
    if (c.curves.empty()) continue;
    const Method method = c.dimension->method;
    std::map<std::string, std::vector<const Curve*>> panels;
    std::vector<std::string> order;
    for (const Curve& k : c.curves) {
      const std::string p = panel_of(k, method);
      if (panels[p].empty()) order.push_back(p);
      panels[p].push_back(&k);
    }
    const std::string file = "search-" + c.dimension->tunable + ".png";
    const int cols = order.size() > 1 ? 2 : 1;
    const int rows = static_cast<int>((order.size() + 1) / static_cast<std::size_t>(cols));
    script << "reset\nset terminal pngcairo noenhanced size " << (cols > 1 ? 1100 : 720) << ","
           << 360 * std::max(1, rows) << " font 'DejaVu Sans,9'\nset output "
           << bench::gnuplot_quoted((fs::path(dir) / file).string()) << "\n";
    if (order.size() > 1) script << "set multiplot layout " << rows << "," << cols << "\n";
    for (const std::string& p : order) {
      const std::vector<const Curve*>& curves = panels[p];
      const bool sizes = method == Method::crossover;
      const bool categories = method == Method::choice;
      script << "set title " << bench::gnuplot_quoted(c.dimension->tunable + (p.empty() ? "" : ": " + p))
             << "\nset xlabel " << bench::gnuplot_quoted(sizes ? "message size (bytes)" : c.dimension->tunable)
             << "\nset ylabel " << bench::gnuplot_quoted(curves.front()->unit)
             << "\nset grid\nset key top left box opaque\n"
             << (categories ? "unset logscale x\nset offsets 0.5,0.5,0,0\n" : "set logscale x 2\n")
             << (sizes ? "set format x '%.0b%B'\nset logscale y\n" : "set format x '%g'\nunset logscale y\n")
             << "plot ";
      for (std::size_t i = 0; i < curves.size(); ++i) {
        const Curve& k = *curves[i];
        const fs::path path = data / ("search" + std::to_string(++number) + ".dat");
        std::ofstream out(path);
        out << "# position median q1 q3 label: " << k.title << "\n";
        for (const CurvePoint& pt : k.points) {
          out << (categories ? static_cast<double>(&pt - k.points.data()) : pt.position) << " " << pt.y.median << " "
              << pt.y.q1 << " " << pt.y.q3 << " \"" << pt.x << "\"\n";
        }
        script << (i ? ", \\\n     " : "") << bench::gnuplot_quoted(path.string()) << " using 1:2:3:4"
               << (categories ? ":xtic(5)" : "") << " with yerrorlines lw 1.5 pt 7 ps 0.6 lc rgb '"
               << kColours[i % std::size(kColours)] << "' title " << bench::gnuplot_quoted(k.title);
      }
      script << "\n";
    }
    if (order.size() > 1) script << "unset multiplot\n";
    files.push_back(file);
  }
  script.close();
  if (files.empty()) return files;
  if (!bench::run_gnuplot(*gnuplot, script_path, problems)) return {};
  return files;
}

}  // namespace mpf::tune::search
