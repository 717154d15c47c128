// AttnScope — `attnscope batch`'s progress. GPL-3.0-or-later.
#include "cli/batch_progress.hpp"

#include <cmath>
#include <cstdio>

namespace cli::batch {

ProgressLine::ProgressLine(Mode mode, std::int64_t total, std::int64_t done, std::int64_t skipped)
    : mode_(mode), total_(total), done_(done), skipped_(skipped), startDone_(done) {}

void ProgressLine::step(bool skipped) {
    ++done_;
    skipped_ += skipped ? 1 : 0;
    if (mode_ == Mode::Quiet) return;
    // The rate of this process's examples: a resumed run's earlier ones took no time here.
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = seconds > 0 ? double(done_ - startDone_) / seconds : 0.0;
    const double left = rate > 0 ? double(total_ - done_) / rate : 0.0;
    if (mode_ == Mode::Json) {
        std::fprintf(stderr,
                     "{\"done\": %lld, \"total\": %lld, \"skipped\": %lld, \"rate\": %.3f, "
                     "\"eta_s\": %.1f}\n",
                     static_cast<long long>(done_), static_cast<long long>(total_),
                     static_cast<long long>(skipped_), rate, left);
    } else {
        const long long s = std::llround(left);
        std::fprintf(stderr, "\rattnscope batch: %lld/%lld examples, %.2f/s, %lld:%02lld left  ",
                     static_cast<long long>(done_), static_cast<long long>(total_), rate, s / 60,
                     s % 60);
    }
    std::fflush(stderr);
}

void ProgressLine::finish(const QString& output) {
    if (mode_ == Mode::Terminal) std::fprintf(stderr, "\n");
    if (mode_ == Mode::Json) {
        // The name as JSON: quotes and backslashes escaped, control characters as \u00XX.
        QString name;
        for (const QChar c : output) {
            if (c == QLatin1Char('"') || c == QLatin1Char('\\'))
                name += QLatin1Char('\\') + QString(c);
            else if (c.unicode() < 0x20)
                name += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            else
                name += c;
        }
        std::fprintf(stderr,
                     "{\"finished\": true, \"output\": \"%s\", \"examples\": %lld, \"skipped\": "
                     "%lld}\n",
                     name.toUtf8().constData(), static_cast<long long>(done_ - skipped_),
                     static_cast<long long>(skipped_));
    }
    std::fflush(stderr);
}

}  // namespace cli::batch
