// AttnScope — the app's writes go through core's OutputFile: a unique temporary file beside
// the destination, renamed over it when whole. GPL-3.0-or-later.
#pragma once

#include <QIODevice>
#include <QString>
#include <QStringList>
#include <memory>

namespace attn::io {
class OutputFile;
}

namespace exporting {

/// A write-only QIODevice over attn::io::OutputFile, used as QSaveFile would be: open(),
/// write(), commit(). Unlike QSaveFile it never writes through a symbolic link (the link is
/// refused beforehand by checkOutput), keeps the replaced file's permissions, and names its
/// temporary file ".NAME.XXXXXX.attnscope-tmp" so that a later run can clean what a killed one
/// left. Destroyed uncommitted, it leaves the destination as it was.
class OutputDevice : public QIODevice {
    Q_OBJECT
  public:
    explicit OutputDevice(const QString& path);
    ~OutputDevice() override;
    /// Creates the temporary file (WriteOnly only); false with errorString() on failure.
    bool open(OpenMode mode) override;
    /// Replaces the destination with what was written; false with errorString() on failure.
    bool commit();
    bool isSequential() const override { return true; }

  protected:
    qint64 readData(char* data, qint64 maxSize) override;
    qint64 writeData(const char* data, qint64 size) override;

  private:
    QString path_;
    std::unique_ptr<attn::io::OutputFile> file_;
    bool failed_ = false;  ///< a write failed: commit() refuses
};

/// Why `path` may not be written ("" when it may): a symbolic link, a folder or device, one of
/// `inputs` (the same file by device and inode), a missing folder, or a read-only file unless
/// `replaceReadOnly` (`howToReplace` ends that message). See attn::io::check_output.
QString checkOutput(const QString& path, const QStringList& inputs, bool replaceReadOnly,
                    const QString& howToReplace = {});

}  // namespace exporting
