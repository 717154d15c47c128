// AttnScope — a warning strip across the top of the window. GPL-3.0-or-later.
#include "widgets/alert_banner.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

AlertBanner::AlertBanner(const QString& action, QWidget* parent) : QFrame(parent) {
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    // The palette's tooltip colours: a warning colour every theme keeps readable.
    setBackgroundRole(QPalette::ToolTipBase);
    setForegroundRole(QPalette::ToolTipText);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 4, 4);
    text_ = new QLabel;
    text_->setWordWrap(true);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text_->setForegroundRole(QPalette::ToolTipText);
    row->addWidget(text_, 1);
    if (!action.isEmpty()) {
        action_ = new QPushButton(action);
        row->addWidget(action_);
        connect(action_, &QPushButton::clicked, this, &AlertBanner::actionClicked);
    }
    close_ = new QToolButton;
    close_->setText(QStringLiteral("×"));
    close_->setToolTip(tr("Hide this message"));
    close_->setAutoRaise(true);
    row->addWidget(close_);
    connect(close_, &QToolButton::clicked, this, &AlertBanner::clear);
    hide();
}

void AlertBanner::setMessage(const QString& message) {
    text_->setText(message);
    show();
}

void AlertBanner::clear() {
    text_->clear();
    hide();
}

QString AlertBanner::message() const {
    return isHidden() ? QString() : text_->text();
}
