BXJ(<˜
<GšhÞúe)SwGlI¬ZíKAs$p‰ãUˆÌ‘š5â