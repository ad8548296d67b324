"""memctl.lifecycle"""
