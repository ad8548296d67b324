"""The vault-shaped evaluation set (issue 31): a winery's memory vault and its questions."""
