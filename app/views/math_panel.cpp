// AttnScope — the math panel widget; its HTML is built in math_html.cpp. GPL-3.0-or-later.
#include "views/math_panel.hpp"

#include <QTextDocument>

#include <QScrollBar>

MathPanel::MathPanel(QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.92);
    setFont(f);
    setToolTip(tr("The selected query's attention, step by step, with the numbers"));
    connect(this, &QTextBrowser::anchorClicked, this,
            [this](const QUrl& url) { followLink(url.toString()); });
    rebuild();
}

void MathPanel::setResult(SceneResultPtr result) {
    result_ = std::move(result);
    rebuild();
}

void MathPanel::setSelection(const Selection& selection) {
    // Another query or head starts on its largest weights again.
    if (selection.query != selection_.query || selection.head != selection_.head) page_.page = -1;
    selection_ = selection;
    rebuild();
}

void MathPanel::setContext(const MathContext& context) {
    // No rebuild: a new context always comes with a new result, which rebuilds.
    context_ = context;
}

void MathPanel::followLink(const QString& link) {
    if (link == QLatin1StringView(kMathLinkLargest))
        page_.page = -1;
    else if (link == QLatin1StringView(kMathLinkKeys))
        page_.allKeys = !page_.allKeys;
    else if (link.startsWith(QLatin1StringView(kMathLinkPage)))
        page_.page = std::max(0, link.mid(int(qstrlen(kMathLinkPage))).toInt());
    else
        return;
    rebuild();
}

void MathPanel::rebuild() {
    const int scroll = verticalScrollBar()->value();
    showHtml(result_ ? mathHtml(*result_, selection_, context_, 64, page_)
                     : tr("<p>Computing…</p>"));
    verticalScrollBar()->setValue(scroll);  // keep the reader's place while values change
}

void MathPanel::showHtml(const QString& html) {
    // A new document, laid out once when it is set: setHtml cleared the shown one first, so the
    // scroll bars went and came back and the panel was laid out and resized twice per result
    // (a quarter of a control change's drawing at 512 tokens).
    auto* doc = new QTextDocument(this);
    doc->setUndoRedoEnabled(false);
    doc->setDefaultFont(font());
    doc->setDocumentMargin(document()->documentMargin());
    doc->setHtml(html);
    QTextDocument* old = document();
    const bool ours = old->parent() == this;  // the first one is the text control's: it goes
    setDocument(doc);
    if (ours) delete old;
}
