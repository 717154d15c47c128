// AttnScope — the open batch result (`attnscope batch … -o OUT.npz`): the one owner of what the
// Batch tab shows and of the choices made there. GPL-3.0-or-later.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

#include "attn/analysis/census.hpp"
#include "attn/io/numpy/batch_result.hpp"
#include "model/batch_attribution.hpp"

/// One example of a batch as it was run: its prompts and answers (what File ▸ Open of its run
/// needs), its line in the dataset.
struct BatchExample {
    int index = 0;  ///< 0 … E−1, the example axis of per_example/*
    int line = 0;   ///< the dataset's line (from 1), 0 when the file does not say
    QString text;   ///< the prompt (patch: the clean one)
    QString corrupt, answer, wrong;
};

/// The keys of a batch result the window reads besides the per-example arrays and their
/// aggregates (docs/datasets.md, "Output"); the one place they are spelled.
namespace batch_keys {
inline constexpr char kAnalysis[] = "analysis";
inline constexpr char kModel[] = "model";
inline constexpr char kOptions[] = "options";
inline constexpr char kText[] = "examples/text";
inline constexpr char kClean[] = "examples/clean";
inline constexpr char kCorrupt[] = "examples/corrupt";
inline constexpr char kAnswer[] = "examples/answer";
inline constexpr char kWrong[] = "examples/wrong";
inline constexpr char kLine[] = "examples/line";
inline constexpr char kSkippedLine[] = "skipped/line";
inline constexpr char kSkippedReason[] = "skipped/reason";
/// The census: aggregate/census_scores_mean and _count [L, H, 6] (the patterns in HeadPattern
/// order), aggregate/census_label_counts [L, H, 7] (Mixed last).
inline constexpr char kCensusMean[] = "aggregate/census_scores_mean";
inline constexpr char kCensusCount[] = "aggregate/census_scores_count";
inline constexpr char kLabelCounts[] = "aggregate/census_label_counts";
}  // namespace batch_keys

/// What the Batch tab shows of a batch result, worked out once off the GUI thread (the load
/// job): per head quantity its maps and the examples ranked by every head and by the total,
/// the census across the corpus. Throws attn::FormatError naming the file and the key when a
/// shown quantity is not [E, L, H] or its aggregates are missing or of another shape.
struct BatchSummary {
    std::shared_ptr<const attn::io::BatchResult> result;
    int layers = 0, heads = 0;
    struct Quantity {
        QString name;              ///< per_example/<name>, [E, L, H]
        attn::Matrix mean, sd, n;  ///< aggregate/<name>_mean, _std and the count, L × H
        /// The examples from the largest |effect| to the smallest (ties: the earlier example
        /// first): [0] by the total over the heads, [1 + l·H + h] by head (l, h).
        std::vector<std::vector<int>> rankings;
    };
    std::vector<Quantity> quantities;
    /// The census across the corpus (empty without the census's aggregates): per pattern
    /// (HeadPattern order) the mean score (NaN where no example defines it) and the examples
    /// that define it, per label (Mixed last) how many examples it wins.
    std::vector<attn::Matrix> censusMean, censusCount, labelWins;
    /// An attribute batch's curves, agreement and scores per token (none for other analyses).
    std::optional<BatchAttribution> attribution;
};

/// Summarises RESULT (see BatchSummary).
BatchSummary summarizeBatch(std::shared_ptr<const attn::io::BatchResult> result);

/// The batch result on show and what is chosen in it: the per-head quantity of the map, the
/// head the examples are sorted by (or their total over the heads). The views draw from it and
/// follow its signals; only File ▸ Open replaces it.
class BatchDocument : public QObject {
    Q_OBJECT
  public:
    explicit BatchDocument(QObject* parent = nullptr);

    /// Shows SUMMARY, read from its file: the first head quantity, sorted by the total.
    void setSummary(std::shared_ptr<const BatchSummary> summary);
    /// nullptr before a batch result is opened.
    const attn::io::BatchResult* result() const;
    QString path() const;
    /// The analysis (patch, ablate, census, compute, attribute): meta/analysis, else the one
    /// the arrays are of.
    QString analysis() const;
    /// The model folder the result names ("" when it names none).
    QString modelDir() const;
    int examples() const;
    int layers() const;
    int heads() const;
    /// The dataset lines the run skipped, with why, as the file lists them.
    QStringList skipped() const;

    /// The per_example/<name> arrays of shape [E, L, H] with aggregates (head_patch, …).
    QStringList headQuantities() const;
    /// The chosen one (nullptr when the result has none).
    const BatchSummary::Quantity* quantity() const;
    void setQuantity(int index);
    int quantityIndex() const { return quantity_; }

    /// The head the examples are sorted by; layer −1: their total over every head.
    int sortLayer() const { return sortLayer_; }
    int sortHead() const { return sortHead_; }
    void setSortHead(int layer, int head);
    /// Example E's effect: the chosen quantity at the sort head, or its sum over the heads.
    double effect(int example) const;
    /// The examples from the largest |effect| to the smallest (ties: the earlier example first).
    std::vector<int> ranking() const;
    BatchExample example(int index) const;

    /// Whether the result holds a census (see BatchSummary).
    bool hasCensus() const;
    /// An attribute batch's numbers (nullptr for other analyses).
    const BatchAttribution* attribution() const;
    /// The example whose scores per token are on show (attribute batches; 0 after opening).
    int attributedExample() const { return attributed_; }
    void setAttributedExample(int index);
    const BatchSummary* summary() const { return summary_.get(); }

  Q_SIGNALS:
    void resultChanged();
    void quantityChanged();
    void sortChanged();
    void attributedExampleChanged();

  private:
    std::shared_ptr<const BatchSummary> summary_;
    int quantity_ = 0;
    int sortLayer_ = -1, sortHead_ = -1;
    int attributed_ = 0;
};
