// PNG plots of a benchmark with gnuplot (Debian package gnuplot-nox): the
// latency and bandwidth curves over sizes, the message rate and the flood,
// each collective's time against the process count, start-up and the token
// ring against the process count, and the OpenSHMEM kernels' figures in one
// plot. One line per implementation, with the interquartile range as error
// bars. The data files and the gnuplot script stay in DIR/plot-data, so a
// plot can be redrawn or restyled by hand.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "tune/bench/gnuplot.hpp"
#include "tune/bench/report.hpp"

namespace mpf::tune::bench {

namespace fs = std::filesystem;

namespace {

struct Point {
  double x, median, q1, q3;
};

struct Curve {
  std::string title;
  std::size_t implementation;  // index: its colour
  bool dashed = false;
  std::vector<Point> points{};
};

struct Panel {
  std::string title, xlabel, ylabel;
  bool x_bytes = false;  // x is a size: binary prefixes on the axis
  bool log_y = true;
  std::vector<Curve> curves{};
};

struct Figure {
  std::string file;
  std::vector<Panel> panels{};
};

const char* const kColours[] = {"#c0392b", "#2471a3", "#229954", "#8e44ad", "#d68910"};

// The curve of one implementation over sizes (points of `kernel`/`op` at
// `np`), or over process counts (at `bytes`, none for a kernel without).
Curve curve_over_sizes(const BenchReport& r, std::size_t impl, const std::string& kernel, const std::string& op,
                       const std::string& title) {
  Curve c{.title = title, .implementation = impl};
  for (const PointKey& key : r.results.keys) {
    if (key.kernel != kernel || key.op != op || !key.bytes || *key.bytes == 0) continue;
    if (const Series* s = r.results.find(r.implementations[impl].id, key)) {
      c.points.push_back({static_cast<double>(*key.bytes), s->summary.median, s->summary.q1, s->summary.q3});
    }
  }
  return c;
}

Curve curve_over_np(const BenchReport& r, std::size_t impl, const std::string& kernel, const std::string& op,
                    std::optional<long> bytes, const std::string& title) {
  Curve c{.title = title, .implementation = impl};
  for (const PointKey& key : r.results.keys) {
    if (key.kernel != kernel || key.op != op || key.bytes != bytes) continue;
    if (const Series* s = r.results.find(r.implementations[impl].id, key)) {
      c.points.push_back({static_cast<double>(key.np), s->summary.median, s->summary.q1, s->summary.q3});
    }
  }
  return c;
}

void add(Panel& p, Curve c) {
  if (!c.points.empty()) p.curves.push_back(std::move(c));
}

std::vector<Figure> figures(const BenchReport& r) {
  std::vector<Figure> out;
  const std::size_t n = r.implementations.size();
  auto size_panel = [&](const std::string& title, const std::string& ylabel, bool log_y,
                        const std::vector<std::pair<std::string, bool>>& kernels) {
    Panel p{.title = title, .xlabel = "message size (bytes)", .ylabel = ylabel, .x_bytes = true, .log_y = log_y};
    for (std::size_t i = 0; i < n; ++i) {
      for (const auto& [kernel, dashed] : kernels) {
        Curve c = curve_over_sizes(r, i, kernel, "-",
                                   r.implementations[i].name + (kernels.size() > 1 ? " " + kernel : ""));
        c.dashed = dashed;
        add(p, std::move(c));
      }
    }
    return p;
  };
  auto single = [&](const std::string& file, Panel p) {
    if (!p.curves.empty()) out.push_back(Figure{.file = file, .panels = {std::move(p)}});
  };
  single("latency.png", size_panel("Ping-pong latency (half round trip)", "us", true, {{"pingpong", false}}));
  single("bandwidth.png", size_panel("Bandwidth: streaming (solid) and bidirectional (dashed)", "MB/s", true,
                                     {{"bw", false}, {"bibw", true}}));
  single("msgrate.png", size_panel("Message rate, windows of nonblocking messages", "million messages/s", false,
                                   {{"msgrate", false}}));
  single("flood.png", size_panel("Unexpected-message flood", "us per message", true, {{"flood", false}}));

  // Collectives: one panel per operation; per MPI the smallest size (solid)
  // and the largest measured at every process count (dashed).
  Figure coll{.file = "collectives.png"};
  std::vector<std::string> ops;
  for (const PointKey& key : r.results.keys) {
    if (key.kernel == "collectives" && std::find(ops.begin(), ops.end(), key.op) == ops.end()) ops.push_back(key.op);
  }
  for (const std::string& op : ops) {
    Panel p{.title = "MPI_" + std::string(1, static_cast<char>(std::toupper(op[0]))) + op.substr(1),
            .xlabel = "ranks", .ylabel = "us"};
    std::set<int> all_np;
    std::map<long, std::set<int>> np_by_size;
    for (const PointKey& key : r.results.keys) {
      if (key.kernel != "collectives" || key.op != op) continue;
      all_np.insert(key.np);
      if (key.bytes) np_by_size[*key.bytes].insert(key.np);
    }
    std::vector<std::optional<long>> sizes;
    if (np_by_size.empty()) {
      sizes.push_back(std::nullopt);
    } else {
      sizes.push_back(np_by_size.begin()->first);
      for (auto it = np_by_size.rbegin(); it != np_by_size.rend(); ++it) {
        if (it->second == all_np) {
          if (it->first != np_by_size.begin()->first) sizes.push_back(it->first);
          break;
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        const std::string label = sizes[k] ? " " + format_bytes(*sizes[k]) + " B" : "";
        Curve c = curve_over_np(r, i, "collectives", op, sizes[k], r.implementations[i].name + label);
        c.dashed = k > 0;
        add(p, std::move(c));
      }
    }
    if (!p.curves.empty()) coll.panels.push_back(std::move(p));
  }
  if (!coll.panels.empty()) out.push_back(std::move(coll));

  auto np_panel = [&](const std::string& title, const std::string& kernel, const std::string& ylabel) {
    Panel p{.title = title, .xlabel = "ranks", .ylabel = ylabel};
    for (std::size_t i = 0; i < n; ++i) add(p, curve_over_np(r, i, kernel, "-", std::nullopt, r.implementations[i].name));
    return p;
  };
  single("startup.png", np_panel("Job start-up (launch to exit of the empty program)", "startup", "ms"));
  single("token_ring.png", np_panel("Token ring", "token_ring", "us per hop"));

  // OpenSHMEM: one figure, a panel per measure; the collectives at their
  // smallest size (8 bytes).
  Figure shmem{.file = "shmem.png"};
  auto shmem_sizes = [&](const std::string& title, const std::string& ylabel, const std::string& kernel,
                         const std::vector<std::pair<std::string, bool>>& ops) {
    Panel p{.title = title, .xlabel = "message size (bytes)", .ylabel = ylabel, .x_bytes = true};
    for (std::size_t i = 0; i < n; ++i) {
      for (const auto& [op, dashed] : ops) {
        Curve c = curve_over_sizes(r, i, kernel, op, r.implementations[i].name + (ops.size() > 1 ? " " + op : ""));
        c.dashed = dashed;
        add(p, std::move(c));
      }
    }
    if (!p.curves.empty()) shmem.panels.push_back(std::move(p));
  };
  auto shmem_np = [&](const std::string& title, const std::string& kernel, const std::string& op,
                      std::optional<long> bytes, const std::string& ylabel) {
    Panel p{.title = title, .xlabel = "PEs", .ylabel = ylabel};
    for (std::size_t i = 0; i < n; ++i) add(p, curve_over_np(r, i, kernel, op, bytes, r.implementations[i].name));
    if (!p.curves.empty()) shmem.panels.push_back(std::move(p));
  };
  shmem_sizes("shmem_getmem latency", "us", "shmem_latency", {{"get", false}});
  shmem_sizes("Bandwidth: put_nbi (solid), get_nbi (dashed)", "MB/s", "shmem_bw", {{"put", false}, {"get", true}});
  shmem_np("fetch_add of every PE on one word", "shmem_latency", "fetch_add_all", std::nullopt, "us");
  shmem_np("shmem_barrier_all", "shmem_collectives", "barrier_all", std::nullopt, "us");
  shmem_np("Broadcast of 8 bytes", "shmem_collectives", "broadcast", 8, "us");
  shmem_np("Sum reduction of one long", "shmem_collectives", "sum_reduce", 8, "us");
  shmem_np("Start-up of the empty OpenSHMEM program", "shmem_startup", "-", std::nullopt, "ms");
  if (!shmem.panels.empty()) out.push_back(std::move(shmem));
  return out;
}

}  // namespace

std::vector<std::string> write_plots(const BenchReport& r, const std::string& dir, std::vector<std::string>& problems) {
  const std::optional<GnuplotRun> gnuplot = prepare_plots(dir, problems);
  if (!gnuplot) return {};
  const fs::path& data = gnuplot->data;
  const fs::path script_path = data / "plots.gp";
  std::ofstream script(script_path);
  std::vector<std::string> files;
  int file_number = 0;
  for (const Figure& f : figures(r)) {
    const std::size_t panels = f.panels.size();
    const int cols = panels > 1 ? 3 : 1;
    const int rows = static_cast<int>((panels + static_cast<std::size_t>(cols) - 1) / static_cast<std::size_t>(cols));
    // noenhanced: an underscore in a title (shmem_barrier_all) is a character, not a subscript.
    script << "reset\nset terminal pngcairo noenhanced size " << (cols > 1 ? 1200 : 720) << ","
           << (rows > 1 ? 760 : 450) << " font 'DejaVu Sans,9'\nset output "
           << gnuplot_quoted((fs::path(dir) / f.file).string()) << "\n";
    if (panels > 1) script << "set multiplot layout " << rows << "," << cols << "\n";
    for (const Panel& p : f.panels) {
      script << "set title " << gnuplot_quoted(p.title) << "\nset xlabel " << gnuplot_quoted(p.xlabel)
             << "\nset ylabel " << gnuplot_quoted(p.ylabel)
             << "\nset grid\nset key top left box opaque\nset logscale x 2\n"
             << (p.log_y ? "set logscale y\n" : "unset logscale y\nset yrange [0:*]\n")
             << (p.x_bytes ? "set format x '%.0b%B'\n" : "set format x '%g'\n") << "plot ";
      for (std::size_t c = 0; c < p.curves.size(); ++c) {
        const Curve& curve = p.curves[c];
        const fs::path file = data / ("curve" + std::to_string(++file_number) + ".dat");
        std::ofstream out(file);
        out << "# x median q1 q3: " << curve.title << "\n";
        for (const Point& pt : curve.points) out << pt.x << " " << pt.median << " " << pt.q1 << " " << pt.q3 << "\n";
        script << (c ? ", \\\n     " : "") << gnuplot_quoted(file.string())
               << " using 1:2:3:4 with yerrorlines lw 1.5 pt 7 ps 0.5"
               << " lc rgb '" << kColours[curve.implementation % std::size(kColours)] << "'"
               << (curve.dashed ? " dt 2" : " dt 1") << " title " << gnuplot_quoted(curve.title);
      }
      script << "\n";
    }
    if (panels > 1) script << "unset multiplot\n";
    files.push_back(f.file);
  }
  script.close();
  if (files.empty()) return files;
  if (!run_gnuplot(*gnuplot, script_path, problems)) return {};
  return files;
}

}  // namespace mpf::tune::bench
