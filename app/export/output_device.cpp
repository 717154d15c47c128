// AttnScope — the app's writes go through core's OutputFile. GPL-3.0-or-later.
#include "export/output_device.hpp"

#include <QFile>
#include <string>
#include <vector>

#include "attn/files/output_file.hpp"

namespace exporting {
namespace {

/// Core's message without its leading "PATH: ": the callers name the file themselves, as they
/// did with QSaveFile's errorString().
QString withoutPath(const std::exception& e, const QString& path) {
    QString why = QString::fromUtf8(e.what());
    const QString prefix = path + QStringLiteral(": ");
    return why.startsWith(prefix) ? why.mid(prefix.size()) : why;
}

}  // namespace

OutputDevice::OutputDevice(const QString& path) : path_(path) {}

OutputDevice::~OutputDevice() = default;

bool OutputDevice::open(OpenMode mode) {
    if (mode != QIODevice::WriteOnly || file_) {
        setErrorString(tr("the file can only be opened once, for writing"));
        return false;
    }
    try {
        file_ = std::make_unique<attn::io::OutputFile>(QFile::encodeName(path_).toStdString());
    } catch (const std::exception& e) {
        setErrorString(withoutPath(e, path_));
        return false;
    }
    return QIODevice::open(mode);
}

bool OutputDevice::commit() {
    if (!file_) return false;
    QIODevice::close();
    if (failed_) {  // errorString() says why; the destination stays as it was
        file_.reset();
        return false;
    }
    try {
        file_->commit();
    } catch (const std::exception& e) {
        setErrorString(withoutPath(e, path_));
        file_.reset();
        return false;
    }
    file_.reset();
    return true;
}

qint64 OutputDevice::readData(char*, qint64) {
    return -1;
}

qint64 OutputDevice::writeData(const char* data, qint64 size) {
    if (!file_) return -1;
    try {
        file_->append({reinterpret_cast<const std::byte*>(data), std::size_t(size)});
    } catch (const std::exception& e) {
        failed_ = true;
        setErrorString(withoutPath(e, path_));
        return -1;
    }
    return size;
}

QString checkOutput(const QString& path, const QStringList& inputs, bool replaceReadOnly,
                    const QString& howToReplace) {
    std::vector<std::string> in;
    for (const QString& i : inputs)
        in.push_back(QFile::encodeName(i).toStdString());
    try {
        attn::io::check_output(QFile::encodeName(path).toStdString(), in, replaceReadOnly,
                               howToReplace.toStdString());
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace exporting
