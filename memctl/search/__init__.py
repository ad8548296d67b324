"""memctl.search"""
