
BxJ ù ø ô ðÀnÀrÀvÀz