// AttnScope — `attnscope batch`'s inputs: the dataset's lines of a shard and the hashes of the
// model folder and the dataset that a resumed run and a merge compare. GPL-3.0-or-later.
#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <string>
#include <vector>

namespace cli::batch {

/// One non-blank line of the dataset.
struct DatasetLine {
    std::int64_t number = 0;  ///< from 1, counting every line
    QByteArray text;
};

/// The lines a run takes and what it was given.
struct Source {
    std::vector<DatasetLine> lines;      ///< the shard's, in dataset order
    std::string modelHash, datasetHash;  ///< SHA-256, hex
};

/// Reads DATASET (a regular file), keeps the non-blank lines whose index among them is K modulo
/// N, and hashes the dataset and MODEL's files (those a run reads, as -o's check lists them).
/// Returns an exit code; *ERROR says what failed, naming the file.
int readSource(const QString& model, const QString& dataset, std::int64_t k, std::int64_t n,
               Source* source, QString* error);

}  // namespace cli::batch
